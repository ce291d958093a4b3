import { builder } from '../builder.ts';
import { DISPUTE_FIELDS } from '../domain/disputes/dispute.fields.ts';
import { createDispute } from '../domain/disputes/create-dispute.ts';
import { disputeMachine } from '../domain/disputes/dispute-state.ts';
import { getDispute, listDisputes } from '../domain/disputes/get-dispute.ts';
import { approveDispute, closeDispute } from '../domain/disputes/resolve-dispute.ts';
import { enums } from './enums.ts';
import { exposePublicFields } from './fields.ts';
import { operationField } from './operation-field.ts';

export const Dispute = builder.prismaObject('Dispute', {
  description: 'A customer contesting one post-trip charge; while open it locks collection of that charge.',
  fields: (t) => ({
    ...(exposePublicFields(t, DISPUTE_FIELDS, enums) as {}),
    nextStates: t.field({ type: [enums.DisputeState], description: 'States the dispute can move to now.', resolve: (d) => disputeMachine.nextStates(d) }),
    charge: t.relation('charge'),
  }),
});

builder.prismaObjectField('Charge', 'disputes', (t) => t.relation('disputes', { description: 'Disputes of the charge, newest first.', query: { orderBy: { id: 'desc' } } }));

const disputes = operationField(listDisputes);
const dispute = operationField(getDispute);
const mutations = [createDispute, approveDispute, closeDispute].map((operation) => [operation.name, operationField(operation)] as const);

builder.queryFields((t) => ({
  disputes: disputes.connection(t, Dispute),
  dispute: dispute.prisma(t, 'Dispute'),
}));

builder.mutationFields((t) => Object.fromEntries(mutations.map(([name, field]) => [name, field.prisma(t, 'Dispute')])));
