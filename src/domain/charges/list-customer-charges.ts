import { z } from 'zod';
import { found } from '../shared/found.ts';
import { defineOperation } from '../shared/operation.ts';
import { createdWhere, pageQuery, toPage } from '../shared/pagination.ts';
import { chargeFilters, chargeWhere } from './charge-filters.ts';
import { id } from '../shared/validation.ts';

export const listCustomerCharges = defineOperation({
  name: 'customerCharges',
  summary: "List a customer's charges",
  description: "The customer's post-trip charges over all their bookings, newest first.",
  access: { permission: 'charges:read' },
  args: z.object({ customerId: id('The customer (cus_...).'), ...chargeFilters }),
  errors: [],
  example: { customerId: 'cus_01jd3m4k5n6p7q8r9s0t1v2w3x', state: 'pending', type: 'damage' },
  async run(ctx, args, { page, query }) {
    await found(ctx.db.customer.findUnique({ where: { id: args.customerId }, select: { id: true } }), 'customer', args.customerId);
    const p = pageQuery(page ?? {});
    const rows = await ctx.db.charge.findMany({ ...query, where: { customerId: args.customerId, ...chargeWhere(args), ...createdWhere(args), ...p.where }, orderBy: p.orderBy, take: p.take });
    return toPage(rows, p);
  },
});
