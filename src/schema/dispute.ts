import { builder } from '../builder.ts';
import { DISPUTE_FIELDS } from '../domain/charges/dispute.fields.ts';
import { DisputeState } from '../generated/prisma/enums.ts';
import { enums } from './enums.ts';
import { exposePublicFields } from './fields.ts';

const DisputeStateEnum = builder.enumType(DisputeState, { name: 'DisputeState' });

export const Dispute = builder.prismaObject('Dispute', {
  description: 'A customer contesting one post-trip charge; while open it locks collection on the booking.',
  fields: (t) => ({ ...(exposePublicFields(t, DISPUTE_FIELDS, { ...enums, DisputeState: DisputeStateEnum }) as {}), charge: t.relation('charge') }),
});
