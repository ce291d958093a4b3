import { builder } from '../builder.ts';
import { DISPUTE_FIELDS } from '../domain/disputes/dispute.fields.ts';
import { disputeMachine } from '../domain/disputes/dispute-state.ts';
import { enums } from './enums.ts';
import { exposePublicFields } from './fields.ts';

export const Dispute = builder.prismaObject('Dispute', {
  description: 'A customer contesting one post-trip charge; while open it locks collection of that charge.',
  fields: (t) => ({
    ...(exposePublicFields(t, DISPUTE_FIELDS, enums) as {}),
    nextStates: t.field({ type: [enums.DisputeState], description: 'States the dispute can move to now.', resolve: (d) => disputeMachine.nextStates(d) }),
    charge: t.relation('charge'),
  }),
});
