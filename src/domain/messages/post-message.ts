import type { MessageChannel } from '../../generated/prisma/enums.ts';
import { originOf, recordEvent } from '../events/event.service.ts';
import type { DomainContext, Db } from '../shared/context.ts';
import { found } from '../shared/found.ts';
import { newId } from '../shared/ids.ts';
import type { PrismaQuery } from '../shared/operation.ts';
import { deliverMessage } from './deliver-message.ts';
import { presentMessage } from './message-state.ts';
import { redactPaymentData } from './redaction.ts';

/** Who a message goes to: an existing conversation, or a customer (and the booking it is about). */
export interface MessageTarget {
  conversationId: string | null;
  customerId: string | null;
  bookingId: string | null;
}

/** Resolve the caller's ids (each 404 when not the caller's) into a target. */
export async function resolveTarget(ctx: DomainContext, input: { conversationId?: string | null; bookingId?: string | null; customerId?: string | null }): Promise<MessageTarget> {
  let bookingId: string | null = null;
  let customerId: string | null = input.customerId ?? null;
  if (input.bookingId) {
    const booking = await found(ctx.db.booking.findUnique({ where: { id: input.bookingId }, select: { id: true, customerId: true } }), 'booking', input.bookingId, 'booking_id');
    bookingId = booking.id;
    customerId ??= booking.customerId;
  }
  if (input.conversationId) {
    const conversation = await found(ctx.db.conversation.findUnique({ where: { id: input.conversationId }, select: { id: true, customerId: true } }), 'conversation', input.conversationId, 'conversation_id');
    return { conversationId: conversation.id, customerId: conversation.customerId, bookingId };
  }
  if (customerId) await found(ctx.db.customer.findUnique({ where: { id: customerId }, select: { id: true } }), 'customer', customerId, 'customer_id');
  return { conversationId: null, customerId, bookingId };
}

/** The customer's address on a channel that delivers (null in_app, or when the customer has none: the message then fails with recipient_missing). */
export async function recipientOf(ctx: DomainContext, customerId: string | null, channel: MessageChannel): Promise<string | null> {
  if (channel === 'in_app' || !customerId) return null;
  const customer = await ctx.db.customer.findUnique({ where: { id: customerId }, select: { email: true, phone: true } });
  return (channel === 'email' ? customer?.email : customer?.phone) || null;
}

/**
 * Store a message to a customer inside the caller's transaction (so it commits with the change
 * that sends it, such as an agreement sent for signing): payment data is redacted before
 * anything is stored, the message joins the conversation (the customer's on that channel,
 * made on first use) and `message.created` is recorded. Deliver it after the commit.
 */
export async function storeMessage(ctx: DomainContext, tx: Db, target: MessageTarget, channel: MessageChannel, body: string, recipient: string | null) {
  const { text, redacted } = redactPaymentData(body);
  const now = ctx.now();
  const conversation =
    target.conversationId !== null
      ? { id: target.conversationId }
      : ((await tx.conversation.findFirst({ where: { customerId: target.customerId, channel }, orderBy: { id: 'desc' }, select: { id: true } })) ??
        (await tx.conversation.create({ data: { id: newId('conversation'), ...ctx.tenant, customerId: target.customerId, bookingId: target.bookingId, channel }, select: { id: true } })));
  const created = await tx.message.create({
    data: {
      id: newId('message'), ...ctx.tenant, conversationId: conversation.id, bookingId: target.bookingId, channel, body: text, redacted, recipient,
      state: channel === 'in_app' ? 'sent' : 'queued', sentAt: channel === 'in_app' ? now : null,
    },
  });
  await recordEvent(tx, originOf(ctx), { type: 'message.created', bookingId: target.bookingId, object: presentMessage(created) });
  return created;
}

/** Hand a stored email or SMS to its channel at once (the answer shows the outcome; a channel that is down leaves it queued for the sweep). */
export async function deliverStored(ctx: DomainContext, message: { id: string; state: string }) {
  if (message.state !== 'queued') return;
  const business = await ctx.db.business.findUnique({ where: { id: ctx.tenant.businessId }, select: { name: true } });
  await deliverMessage(ctx.db, originOf(ctx), ctx.messaging, message.id, ctx.now(), business?.name ?? 'Your rental company');
}

/**
 * Post a message to a customer, the one way every message is sent (POST /v1/messages, a
 * conversation's or a booking's messages, an agreement sent for signing): stored with its
 * event (storeMessage), then delivered.
 */
export async function postMessage(ctx: DomainContext, target: MessageTarget, channel: MessageChannel, body: string, query: PrismaQuery = {}) {
  const recipient = await recipientOf(ctx, target.customerId, channel);
  const message = await ctx.db.$transaction((tx) => storeMessage(ctx, tx, target, channel, body, recipient));
  await deliverStored(ctx, message);
  return ctx.db.message.findUniqueOrThrow({ ...query, where: { id: message.id } });
}
