import { z } from 'zod';
import { found } from '../shared/found.ts';
import { defineOperation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';

export const getCharge = defineOperation({
  name: 'charge',
  summary: 'Retrieve a charge',
  description: 'A post-trip charge: type, amount, state, the failure of its last collection, and the states it can move to next.',
  access: { permission: 'charges:read' },
  args: z.object({ id: id('The charge (chg_...).') }),
  errors: [],
  example: { id: 'chg_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  run: (ctx, args, { query }) => found(ctx.db.charge.findUnique({ ...query, where: { id: args.id } }), 'charge', args.id),
});
