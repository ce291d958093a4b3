import type { Prisma } from '../../generated/prisma/client.ts';
import { authorize } from '../access/permissions.ts';
import { assertBookingVisible } from '../bookings/booking.service.ts';
import { scope, type DomainContext } from '../shared/context.ts';
import { pageQuery, toPage, type PageParams } from '../shared/pagination.ts';

/** GET /v1/bookings/{id}/charges: the booking's post-trip charges, newest first. */
export async function listBookingCharges(ctx: DomainContext, bookingId: string, params: PageParams, query: { include?: Prisma.ChargeInclude; select?: Prisma.ChargeSelect } = {}) {
  authorize(ctx.principal, 'charges:read');
  await assertBookingVisible(ctx, bookingId);
  const page = pageQuery(params);
  const rows = await ctx.prisma.charge.findMany({
    ...query,
    where: { bookingId, ...scope(ctx), ...page.where },
    orderBy: page.orderBy,
    take: page.take,
  });
  return toPage(rows, page);
}
