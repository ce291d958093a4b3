import { CommonErrors } from '../shared/common.errors.ts';
import { z } from 'zod';
import type { MessageChannel } from '../../generated/prisma/enums.ts';
import { originOf, recordEvent } from '../events/event.service.ts';
import type { DomainContext } from '../shared/context.ts';
import { found } from '../shared/found.ts';
import { newId } from '../shared/ids.ts';
import { defineOperation } from '../shared/operation.ts';
import { present } from '../shared/presenter.ts';
import { id } from '../shared/validation.ts';
import { MESSAGE_FIELDS } from './message.fields.ts';
import { redactPaymentData } from './redaction.ts';

const sendMessageInput = z
  .object({
    channel: z.enum(['in_app', 'sms', 'email']).meta({ id: 'MessageChannel' }),
    body: z.string().min(1).max(5000).meta({ description: 'The text. Card numbers and security codes are replaced before anything is stored.' }),
    conversationId: id('An existing conversation (conv_...).').nullish(),
    bookingId: id('The booking the message is about (bk_...); its customer receives it.').nullish(),
    customerId: id('The customer (cus_...), when neither a conversation nor a booking is named.').nullish(),
  })
  .superRefine((m, ctx) => {
    if (!m.conversationId && !m.bookingId && !m.customerId) ctx.addIssue({ code: 'custom', path: ['customerId'], message: 'pass conversation_id, booking_id or customer_id' });
  })
  .meta({ id: 'SendMessageInput' });

type Recipient = { conversationId: string | null; customerId: string | null; bookingId: string | null };

async function resolveRecipient(ctx: DomainContext, input: { conversationId?: string | null; bookingId?: string | null; customerId?: string | null }): Promise<Recipient> {
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

export const sendMessage = defineOperation({
  name: 'sendMessage',
  summary: 'Send a message',
  description:
    "Sends a message to a customer, in an existing conversation or the customer's conversation on that channel. Card numbers (Luhn-valid, 13-19 digits, whatever separates them) and labelled security codes are redacted before anything is stored; `redacted` tells whether that happened.",
  access: { permission: 'messages:write' },
  args: z.object({ input: sendMessageInput }),
  errors: [CommonErrors.resourceMissing],
  example: { input: { channel: 'sms', body: 'Your car is ready at 10:00.', bookingId: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x' } },
  async run(ctx, { input }, { query }) {
    const { text, redacted } = redactPaymentData(input.body);
    const target = await resolveRecipient(ctx, input);
    const channel = input.channel as MessageChannel;
    return ctx.db.$transaction(async (tx) => {
      const conversation =
        target.conversationId !== null
          ? { id: target.conversationId }
          : ((await tx.conversation.findFirst({ where: { customerId: target.customerId, channel }, orderBy: { id: 'desc' }, select: { id: true } })) ??
            (await tx.conversation.create({ data: { id: newId('conversation'), ...ctx.tenant, customerId: target.customerId, bookingId: target.bookingId, channel }, select: { id: true } })));
      const message = await tx.message.create({
        data: { id: newId('message'), ...ctx.tenant, conversationId: conversation.id, bookingId: target.bookingId, channel, body: text, redacted },
      });
      await recordEvent(tx, originOf(ctx), { type: 'message.created', bookingId: target.bookingId, object: present('message', MESSAGE_FIELDS, message) });
      if (query && Object.keys(query).length) return tx.message.findUniqueOrThrow({ ...query, where: { id: message.id } });
      return message;
    });
  },
});
