import { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.ts';
import { found } from '../shared/found.ts';
import { defineOperation } from '../shared/operation.ts';
import { createdFilters, createdWhere, pageQuery, toPage } from '../shared/pagination.ts';
import { id } from '../shared/validation.ts';
import { messageChannel } from './send-message.ts';

/** How many of its messages a conversation shows (the latest). */
export const conversationMessagesLimit = 100;

export const listConversations = defineOperation({
  name: 'conversations',
  summary: 'List conversations',
  description: "Conversations with customers, newest first, filtered by customer, booking, channel or creation time (created[gte], created[lt]). A conversation is one customer's thread on one channel.",
  access: { permission: 'messages:read' },
  args: z.object({
    customerId: id('Only the conversations of this customer (cus_...).').nullish(),
    bookingId: id('Only the conversations opened about this booking (bk_...).').nullish(),
    channel: messageChannel.nullish().meta({ description: 'Only conversations on this channel.' }),
    ...createdFilters,
  }),
  errors: [],
  example: { channel: 'email', customerId: 'cus_01jd3m4k5n6p7q8r9s0t1v2w3x', bookingId: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  async run(ctx, args, { page, query }) {
    const p = pageQuery(page ?? {});
    const where: Prisma.ConversationWhereInput = {
      ...(args.customerId ? { customerId: args.customerId } : {}),
      ...(args.bookingId ? { bookingId: args.bookingId } : {}),
      ...(args.channel ? { channel: args.channel } : {}),
      ...createdWhere(args),
      ...p.where,
    };
    return toPage(await ctx.db.conversation.findMany({ ...query, where, orderBy: p.orderBy, take: p.take }), p);
  },
});

export const getConversation = defineOperation({
  name: 'conversation',
  summary: 'Retrieve a conversation',
  description: 'A conversation and its messages (the latest 100, newest first; `message_count` tells how many there are), each with its delivery state.',
  access: { permission: 'messages:read' },
  args: z.object({ id: id('The conversation (conv_...).') }),
  errors: [],
  example: { id: 'conv_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  run: (ctx, args, { query }) => found(ctx.db.conversation.findUnique({ ...query, where: { id: args.id } }), 'conversation', args.id),
});
