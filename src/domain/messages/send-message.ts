import { z } from 'zod';
import type { MessageChannel } from '../../generated/prisma/enums.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import { postMessage, resolveTarget } from './post-message.ts';

/** The channels a message is sent on, declared once for every operation that sends one. */
export const messageChannel = z.enum(['in_app', 'sms', 'email']).meta({ id: 'MessageChannel' });
/** A message's text, declared once. */
export const messageBody = z.string().min(1).max(5000).meta({ description: 'The text. Card numbers and security codes are replaced before anything is stored or sent.' });

const sendMessageInput = z
  .object({
    channel: messageChannel,
    body: messageBody,
    conversationId: id('An existing conversation (conv_...).').nullish(),
    bookingId: id('The booking the message is about (bk_...); its customer receives it.').nullish(),
    customerId: id('The customer (cus_...), when neither a conversation nor a booking is named.').nullish(),
  })
  .superRefine((m, ctx) => {
    if (!m.conversationId && !m.bookingId && !m.customerId) ctx.addIssue({ code: 'custom', path: ['customerId'], message: 'pass conversation_id, booking_id or customer_id' });
  })
  .meta({ id: 'SendMessageInput' });

export const sendMessage = defineOperation({
  name: 'sendMessage',
  summary: 'Send a message',
  description:
    "Sends a message to a customer, in an existing conversation or the customer's conversation on that channel. Card numbers (Luhn-valid, 13-19 digits, whatever separates them) and labelled security codes are redacted before anything is stored or sent; `redacted` tells whether that happened. An email goes out over SMTP and an SMS through the SMS provider at once; `state` shows whether it was sent, is queued for another attempt, or failed.",
  access: { permission: 'messages:write' },
  args: z.object({ input: sendMessageInput }),
  errors: [CommonErrors.resourceMissing],
  example: { input: { channel: 'sms', body: 'Your car is ready at 10:00.', bookingId: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x' } },
  async run(ctx, { input }, { query }) {
    const target = await resolveTarget(ctx, input);
    return postMessage(ctx, target, input.channel as MessageChannel, input.body, query);
  },
});
