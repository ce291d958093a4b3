import { z } from 'zod';
import { found } from '../shared/found.ts';
import { defineOperation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';

export const getVehicle = defineOperation({
  name: 'vehicle',
  summary: 'Retrieve a vehicle',
  description: 'A vehicle with its pricing configuration, archived ones included. Publishable keys may call it.',
  access: { permission: 'vehicles:read', publishable: true },
  args: z.object({ id: id('The vehicle (veh_...).') }),
  errors: [],
  example: { id: 'veh_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  run: (ctx, args, { query }) => found(ctx.db.vehicle.findUnique({ ...query, where: { id: args.id } }), 'vehicle', args.id),
});
