import { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.ts';
import { found } from '../shared/found.ts';
import { defineOperation } from '../shared/operation.ts';
import { pageQuery, toPage } from '../shared/pagination.ts';
import { id, timestamp } from '../shared/validation.ts';
import { EVENT_TYPES } from './event-types.ts';

export const listEvents = defineOperation({
  name: 'events',
  summary: 'List events',
  description: 'What happened, newest first, to catch up after downtime: the same events webhooks and subscriptions deliver.',
  access: { permission: 'events:read' },
  args: z.object({
    type: z.enum(EVENT_TYPES).nullish().meta({ description: 'Only events of this type.' }),
    bookingId: id('Only the events of this booking (bk_...).').nullish(),
    createdAfter: timestamp('Only events created after this time.').nullish(),
    createdBefore: timestamp('Only events created before this time.').nullish(),
  }),
  errors: [],
  example: { type: 'booking.created', bookingId: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x', createdAfter: '2026-11-01T00:00:00Z', createdBefore: '2026-12-01T00:00:00Z' },
  async run(ctx, filter, { page }) {
    const p = pageQuery(page ?? {});
    const where: Prisma.EventWhereInput = {
      ...(filter.type ? { type: filter.type } : {}),
      ...(filter.bookingId ? { bookingId: filter.bookingId } : {}),
      ...(filter.createdAfter || filter.createdBefore ? { createdAt: { ...(filter.createdAfter ? { gt: filter.createdAfter } : {}), ...(filter.createdBefore ? { lt: filter.createdBefore } : {}) } } : {}),
      ...p.where,
    };
    return toPage(await ctx.db.event.findMany({ where, orderBy: p.orderBy, take: p.take }), p);
  },
});

export const getEvent = defineOperation({
  name: 'event',
  summary: 'Retrieve an event',
  description: 'One event, exactly as webhooks deliver it.',
  access: { permission: 'events:read' },
  args: z.object({ id: id('The event (evt_...).') }),
  errors: [],
  example: { id: 'evt_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  run: (ctx, args) => found(ctx.db.event.findUnique({ where: { id: args.id } }), 'event', args.id),
});
