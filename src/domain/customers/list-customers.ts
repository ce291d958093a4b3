import { z } from 'zod';
import { defineOperation } from '../shared/operation.ts';
import { createdFilters, createdWhere, pageQuery, toPage } from '../shared/pagination.ts';
import { normalizeEmail } from './customer-input.ts';

export const listCustomers = defineOperation({
  name: 'customers',
  summary: 'List customers',
  description: 'Customers of the business, newest first, filtered by email (exact, without regard to case) or creation time (created[gte], created[lt]).',
  access: { permission: 'customers:read' },
  args: z.object({
    email: z.string().trim().min(1).max(320).nullish().meta({ description: 'Only customers with this email (case does not matter).' }),
    ...createdFilters,
  }),
  errors: [],
  example: { email: 'ada@example.com' },
  async run(ctx, args, { page, query }) {
    const p = pageQuery(page ?? {});
    const where = { ...(args.email ? { emailNormalized: normalizeEmail(args.email) } : {}), ...createdWhere(args), ...p.where };
    return toPage(await ctx.db.customer.findMany({ ...query, where, orderBy: p.orderBy, take: p.take }), p);
  },
});
