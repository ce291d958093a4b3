import { builder } from '../builder.ts';
import { conversationMessagesLimit, getConversation, listConversations } from '../domain/messages/conversation-queries.ts';
import { sendBookingMessage, sendConversationMessage } from '../domain/messages/conversation-messages.ts';
import { CONVERSATION_FIELDS } from '../domain/messages/message.fields.ts';
import { enums } from './enums.ts';
import { exposePublicFields } from './fields.ts';
import { operationField } from './operation-field.ts';

const Conversation = builder.prismaObject('Conversation', {
  description: "A customer's thread on one channel (in_app, sms, email), made by the first message sent there.",
  fields: (t) => ({
    ...(exposePublicFields(t, CONVERSATION_FIELDS, enums) as {}),
    messageCount: t.relationCount('messages', { description: 'How many messages the conversation holds.' }),
    messages: t.relation('messages', {
      description: `Its latest ${conversationMessagesLimit} messages, newest first.`,
      query: { orderBy: { id: 'desc' }, take: conversationMessagesLimit },
      // REST shows them inside the conversation (GET /v1/conversations/{id}).
      extensions: { restEmbed: true },
    }),
    customer: t.relation('customer', { nullable: true }),
  }),
});

const list = operationField(listConversations);
const read = operationField(getConversation);
const inConversation = operationField(sendConversationMessage);
const aboutBooking = operationField(sendBookingMessage);

builder.queryFields((t) => ({
  conversations: list.connection(t, Conversation),
  conversation: read.prisma(t, 'Conversation'),
}));

builder.mutationFields((t) => ({
  sendConversationMessage: inConversation.prisma(t, 'Message'),
  sendBookingMessage: aboutBooking.prisma(t, 'Message'),
}));
