import { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.ts';
import { found } from '../shared/found.ts';
import { defineOperation } from '../shared/operation.ts';
import { createdFilters, createdWhere, pageQuery, toPage } from '../shared/pagination.ts';
import { id } from '../shared/validation.ts';

export const getDispute = defineOperation({
  name: 'dispute',
  summary: 'Retrieve a dispute',
  description: 'A dispute of a charge: its state, reason and account, and the states it can move to next.',
  access: { permission: 'disputes:read' },
  args: z.object({ id: id('The dispute (dsp_...).') }),
  errors: [],
  example: { id: 'dsp_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  run: (ctx, args, { query }) => found(ctx.db.dispute.findUnique({ ...query, where: { id: args.id } }), 'dispute', args.id),
});

export const listDisputes = defineOperation({
  name: 'disputes',
  summary: 'List disputes',
  description: 'Disputes of the business, newest first, filtered by state, charge, booking or creation time.',
  access: { permission: 'disputes:read' },
  args: z.object({
    state: z.enum(['open', 'under_review', 'approved', 'closed']).meta({ id: 'DisputeState' }).nullish().meta({ description: 'Only disputes in this state.' }),
    chargeId: id('Only the disputes of this charge (chg_...).').nullish(),
    bookingId: id("Only the disputes of this booking's charges (bk_...).").nullish(),
    ...createdFilters,
  }),
  errors: [],
  example: { state: 'open', chargeId: 'chg_01jd3m4k5n6p7q8r9s0t1v2w3x', bookingId: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  async run(ctx, filter, { page, query }) {
    const p = pageQuery(page ?? {});
    const where: Prisma.DisputeWhereInput = {
      ...(filter.state ? { state: filter.state } : {}),
      ...(filter.chargeId ? { chargeId: filter.chargeId } : {}),
      ...(filter.bookingId ? { bookingId: filter.bookingId } : {}),
      ...createdWhere(filter),
      ...p.where,
    };
    return toPage(await ctx.db.dispute.findMany({ ...query, where, orderBy: p.orderBy, take: p.take }), p);
  },
});
