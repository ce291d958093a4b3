import { z } from 'zod';
import { defineOperation } from '../shared/operation.ts';
import { pageQuery, toPage } from '../shared/pagination.ts';

export const listVehicles = defineOperation({
  name: 'vehicles',
  summary: 'List vehicles',
  description: 'Active vehicles of the fleet, newest first. Publishable keys may call it.',
  access: { permission: 'vehicles:read', publishable: true },
  args: z.object({}),
  errors: [],
  async run(ctx, _args, { page, query }) {
    const p = pageQuery(page ?? {});
    const rows = await ctx.db.vehicle.findMany({ ...query, where: { status: 'active', ...p.where }, orderBy: p.orderBy, take: p.take });
    return toPage(rows, p);
  },
});
