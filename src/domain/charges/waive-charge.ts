import { z } from 'zod';
import { originOf } from '../events/event.service.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import { found } from '../shared/found.ts';
import { runAction } from '../shared/lifecycle.ts';
import { defineOperation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import { chargeLifecycle } from './charge-state.ts';

export const waiveCharge = defineOperation({
  name: 'waiveCharge',
  summary: 'Waive an eligible charge',
  description: 'Gives up a charge that was not collected (pending or failed): it moves to waived (charge.waived) and can no longer be collected.',
  access: { permission: 'charges:write' },
  args: z.object({ id: id('The charge (chg_...).') }),
  errors: [CommonErrors.invalidStateTransition],
  example: { id: 'chg_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  async run(ctx, args) {
    const charge = await found(ctx.db.charge.findUnique({ where: { id: args.id } }), 'charge', args.id);
    return ctx.db.$transaction((tx) => runAction(tx, originOf(ctx), chargeLifecycle, charge, 'waive'));
  },
});
