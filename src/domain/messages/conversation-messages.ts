import { z } from 'zod';
import type { MessageChannel } from '../../generated/prisma/enums.ts';
import { defineOperation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import { postMessage, resolveTarget } from './post-message.ts';
import { messageBody, messageChannel } from './send-message.ts';

export const sendConversationMessage = defineOperation({
  name: 'sendConversationMessage',
  summary: 'Send a message in a conversation',
  description:
    "Adds a message to the conversation, on its channel, to its customer: redacted of card numbers and security codes before it is stored or sent, then handed to the channel (email over SMTP, SMS through the provider); `state` shows the outcome.",
  access: { permission: 'messages:write' },
  args: z.object({
    conversationId: id('The conversation (conv_...).'),
    input: z.object({ body: messageBody }).meta({ id: 'ConversationMessageInput' }),
  }),
  errors: [],
  example: { conversationId: 'conv_01jd3m4k5n6p7q8r9s0t1v2w3x', input: { body: 'The keys are in the lockbox by the door.' } },
  async run(ctx, args, { query }) {
    const target = await resolveTarget(ctx, { conversationId: args.conversationId });
    const conversation = await ctx.db.conversation.findUniqueOrThrow({ where: { id: target.conversationId! }, select: { channel: true, bookingId: true } });
    return postMessage(ctx, { ...target, bookingId: conversation.bookingId }, conversation.channel, args.input.body, query);
  },
});

export const sendBookingMessage = defineOperation({
  name: 'sendBookingMessage',
  summary: 'Send a booking-scoped message',
  description:
    "Sends a message about the booking to its customer on the channel, in the customer's conversation on that channel (made on first use); the message names the booking and appears in its timeline. Redacted and delivered as every message is.",
  access: { permission: 'messages:write' },
  args: z.object({
    bookingId: id('The booking (bk_...).'),
    input: z.object({ channel: messageChannel, body: messageBody }).meta({ id: 'BookingMessageInput' }),
  }),
  errors: [],
  example: { bookingId: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x', input: { channel: 'email', body: 'Your pickup is tomorrow at 10:00.' } },
  async run(ctx, args, { query }) {
    const target = await resolveTarget(ctx, { bookingId: args.bookingId });
    return postMessage(ctx, target, args.input.channel as MessageChannel, args.input.body, query);
  },
});
