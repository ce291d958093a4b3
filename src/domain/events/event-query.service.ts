import { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.ts';
import { authorize } from '../access/permissions.ts';
import { scope, type DomainContext } from '../shared/context.ts';
import { resourceMissing } from '../shared/errors.ts';
import { pageQuery, toPage, type PageParams } from '../shared/pagination.ts';
import { parseInput, timestamp } from '../shared/validation.ts';

const eventFilter = z.object({
  type: z.string().max(100).nullish(),
  bookingId: z.string().max(100).nullish(),
  createdAfter: timestamp.nullish(),
  createdBefore: timestamp.nullish(),
});

/** GET /v1/events: what happened, newest first, to catch up after downtime. */
export async function listEvents(ctx: DomainContext, params: PageParams & z.input<typeof eventFilter>) {
  authorize(ctx.principal, 'events:read');
  const filter = parseInput(eventFilter, { type: params.type, bookingId: params.bookingId, createdAfter: params.createdAfter, createdBefore: params.createdBefore });
  const page = pageQuery(params);
  const where: Prisma.EventWhereInput = {
    ...scope(ctx),
    ...(filter.type ? { type: filter.type } : {}),
    ...(filter.bookingId ? { bookingId: filter.bookingId } : {}),
    ...(filter.createdAfter || filter.createdBefore ? { createdAt: { ...(filter.createdAfter ? { gt: filter.createdAfter } : {}), ...(filter.createdBefore ? { lt: filter.createdBefore } : {}) } } : {}),
    ...page.where,
  };
  const rows = await ctx.prisma.event.findMany({ where, orderBy: page.orderBy, take: page.take });
  return toPage(rows, page);
}

export async function getEvent(ctx: DomainContext, id: string) {
  authorize(ctx.principal, 'events:read');
  const event = await ctx.prisma.event.findFirst({ where: { id, ...scope(ctx) } });
  if (!event) throw resourceMissing('event', id);
  return event;
}
