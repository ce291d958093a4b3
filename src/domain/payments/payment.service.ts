import type { Prisma } from '../../generated/prisma/client.ts';
import { authorize } from '../access/permissions.ts';
import { scope, type DomainContext } from '../shared/context.ts';
import { resourceMissing } from '../shared/errors.ts';

/** The booking must be the caller's (same business and environment), or it does not exist. */
export async function assertBookingVisible(ctx: DomainContext, bookingId: string): Promise<void> {
  const found = await ctx.prisma.booking.findFirst({ where: { id: bookingId, ...scope(ctx) }, select: { id: true } });
  if (!found) throw resourceMissing('booking', bookingId);
}

export async function getBookingPayment(ctx: DomainContext, bookingId: string, query: { include?: Prisma.PaymentInclude; select?: Prisma.PaymentSelect } = {}) {
  authorize(ctx.principal, 'payments:read');
  const payment = await ctx.prisma.payment.findFirst({ ...query, where: { bookingId, ...scope(ctx) } });
  if (!payment) throw resourceMissing('booking', bookingId);
  return payment;
}

export async function getBookingDeposit(ctx: DomainContext, bookingId: string, query: { include?: Prisma.DepositInclude; select?: Prisma.DepositSelect } = {}) {
  authorize(ctx.principal, 'deposits:read');
  const deposit = await ctx.prisma.deposit.findFirst({ ...query, where: { bookingId, ...scope(ctx) } });
  if (!deposit) throw resourceMissing('booking', bookingId);
  return deposit;
}
