import { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.ts';
import { authorize } from '../access/permissions.ts';
import { scope, type DomainContext } from '../shared/context.ts';
import { resourceMissing } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { parseInput } from '../shared/validation.ts';
import { originOf, recordEvent } from '../events/event.service.ts';
import { present } from '../shared/presenter.ts';
import { redactPaymentData } from './redaction.ts';
import { MESSAGE_FIELDS } from './message.fields.ts';

const sendMessageInput = z
  .object({
    channel: z.enum(['in_app', 'sms', 'email']),
    body: z.string().min(1).max(5000),
    conversationId: z.string().min(1).max(100).nullish(),
    bookingId: z.string().min(1).max(100).nullish(),
    customerId: z.string().min(1).max(100).nullish(),
  })
  .superRefine((m, ctx) => {
    if (!m.conversationId && !m.bookingId && !m.customerId) {
      ctx.addIssue({ code: 'custom', path: ['customerId'], message: 'pass conversation_id, booking_id or customer_id' });
    }
  });

/**
 * POST /v1/messages: send a message to a customer, in an existing conversation or the
 * customer's conversation on that channel. The body is redacted before anything is written.
 */
export async function sendMessage(ctx: DomainContext, raw: unknown, query: { include?: Prisma.MessageInclude; select?: Prisma.MessageSelect } = {}) {
  authorize(ctx.principal, 'messages:write');
  const input = parseInput(sendMessageInput, raw);
  const { text, redacted } = redactPaymentData(input.body);
  const target = await resolveRecipient(ctx, input);
  return ctx.prisma.$transaction(async (tx) => {
    const conversation =
      target.conversationId !== null
        ? { id: target.conversationId }
        : ((await tx.conversation.findFirst({ where: { ...scope(ctx), customerId: target.customerId, channel: input.channel }, orderBy: { id: 'desc' }, select: { id: true } })) ??
          (await tx.conversation.create({ data: { id: newId('conversation'), ...scope(ctx), customerId: target.customerId, bookingId: target.bookingId, channel: input.channel }, select: { id: true } })));
    const message = await tx.message.create({
      data: { id: newId('message'), ...scope(ctx), conversationId: conversation.id, bookingId: target.bookingId, channel: input.channel, body: text, redacted },
    });
    await recordEvent(tx, originOf(ctx), { type: 'message.created', bookingId: target.bookingId, object: present('message', MESSAGE_FIELDS, message) });
    if (query.include || query.select) return tx.message.findUniqueOrThrow({ ...query, where: { id: message.id } } as { where: { id: string } });
    return message;
  });
}

async function resolveRecipient(ctx: DomainContext, input: { conversationId?: string | null; bookingId?: string | null; customerId?: string | null }) {
  let bookingId: string | null = null;
  let customerId: string | null = input.customerId ?? null;
  if (input.bookingId) {
    const booking = await ctx.prisma.booking.findFirst({ where: { id: input.bookingId, ...scope(ctx) }, select: { id: true, customerId: true } });
    if (!booking) throw resourceMissing('booking', input.bookingId, 'booking_id');
    bookingId = booking.id;
    customerId ??= booking.customerId;
  }
  if (input.conversationId) {
    const conversation = await ctx.prisma.conversation.findFirst({ where: { id: input.conversationId, ...scope(ctx) }, select: { id: true, customerId: true } });
    if (!conversation) throw resourceMissing('conversation', input.conversationId, 'conversation_id');
    return { conversationId: conversation.id, customerId: conversation.customerId, bookingId };
  }
  if (customerId) {
    const customer = await ctx.prisma.customer.findFirst({ where: { id: customerId, ...scope(ctx) }, select: { id: true } });
    if (!customer) throw resourceMissing('customer', customerId, 'customer_id');
  }
  return { conversationId: null, customerId, bookingId };
}
