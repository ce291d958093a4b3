import { builder } from '../builder.ts';
import { approveInsurance, getInsurance, rejectInsurance, submitInsurance } from '../domain/insurance/insurance-operations.ts';
import { INSURANCE_FIELDS, insuranceMachine } from '../domain/insurance/insurance-state.ts';
import { enums } from './enums.ts';
import { exposePublicFields } from './fields.ts';
import { operationField } from './operation-field.ts';

builder.prismaObject('Insurance', {
  description: "A booking's insurance submission, reviewed by the business.",
  fields: (t) => ({
    ...(exposePublicFields(t, INSURANCE_FIELDS, enums) as {}),
    nextStates: t.field({ type: [enums.InsuranceState], description: 'States the insurance can move to now.', resolve: (i) => insuranceMachine.nextStates(i) }),
    booking: t.relation('booking'),
  }),
});

const read = operationField(getInsurance);
const mutations = [submitInsurance, approveInsurance, rejectInsurance].map((operation) => [operation.name, operationField(operation)] as const);

builder.queryFields((t) => ({
  bookingInsurance: read.prisma(t, 'Insurance'),
}));

builder.mutationFields((t) => Object.fromEntries(mutations.map(([name, field]) => [name, field.prisma(t, 'Insurance')])));
