import { builder } from '../builder.ts';
import { MESSAGE_FIELDS } from '../domain/messages/message.fields.ts';
import { sendMessage } from '../domain/messages/message.service.ts';
import { enums } from './enums.ts';
import { exposePublicFields } from './fields.ts';

builder.prismaObject('Message', {
  description: 'A message to or from a customer. Payment data in the body is redacted before storage.',
  fields: (t) => ({ ...(exposePublicFields(t, MESSAGE_FIELDS, enums) as {}) }),
});

const SendMessageInput = builder.inputType('SendMessageInput', {
  fields: (t) => ({
    channel: t.field({ type: enums.MessageChannel, required: true }),
    body: t.string({ required: true }),
    conversationId: t.id(),
    bookingId: t.id(),
    customerId: t.id(),
  }),
});

builder.mutationFields((t) => ({
  sendMessage: t.prismaField({
    type: 'Message',
    args: { input: t.arg({ type: SendMessageInput, required: true }) },
    resolve: (query, _root, args, ctx) => sendMessage(ctx.domain, args.input, query),
  }),
}));
