import { z } from 'zod';
import { found } from '../shared/found.ts';
import { defineOperation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';

export const getCustomer = defineOperation({
  name: 'customer',
  summary: 'Retrieve a customer',
  description: "A customer of the business, in the key's environment.",
  access: { permission: 'customers:read' },
  args: z.object({ id: id('The customer (cus_...).') }),
  errors: [],
  example: { id: 'cus_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  run: (ctx, args, { query }) => found(ctx.db.customer.findUnique({ ...query, where: { id: args.id } }), 'customer', args.id),
});
