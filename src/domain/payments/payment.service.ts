import type { Prisma } from '../../generated/prisma/client.ts';
import { authorize } from '../access/permissions.ts';
import { scope, type DomainContext } from '../shared/context.ts';
import { resourceMissing } from '../shared/errors.ts';

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
