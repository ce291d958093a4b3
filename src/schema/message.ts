import { builder } from '../builder.ts';
import { MESSAGE_FIELDS } from '../domain/messages/message.fields.ts';
import { sendMessage } from '../domain/messages/send-message.ts';
import { enums } from './enums.ts';
import { exposePublicFields } from './fields.ts';
import { operationField } from './operation-field.ts';

builder.prismaObject('Message', {
  description: 'A message to or from a customer. Payment data in the body is redacted before storage.',
  fields: (t) => ({ ...(exposePublicFields(t, MESSAGE_FIELDS, enums) as {}), conversation: t.relation('conversation') }),
});

const send = operationField(sendMessage);

builder.mutationFields((t) => ({ sendMessage: send.prisma(t, 'Message') }));
