import { Prisma } from '../../generated/prisma/client.ts';
import { defineOperation } from '../shared/operation.ts';
import { bucketReport, bucketsSql, ratio, reportArgs, reportCurrency, reportExample, reportPeriod, type Figure, type Report } from './report.ts';

/** The bookings report's figures, in order. */
export const BOOKINGS_FIGURES: Figure[] = [
  { name: 'created', kind: 'count', description: 'Bookings created in the bucket.' },
  { name: 'paid', kind: 'count', description: 'Of those, bookings whose payment has succeeded (a succeeded payment transaction), refunded since or not.' },
  { name: 'canceled', kind: 'count', description: 'Of those, bookings now canceled or refunded.' },
  { name: 'completed', kind: 'count', description: 'Of those, bookings now completed.' },
  { name: 'average_rental_days', kind: 'days', description: 'Average rental days of the paid ones (null when none).' },
  { name: 'booking_value_cents', kind: 'cents', description: "Sum of the paid ones' totals (price at booking, in the business's currency)." },
];

const PARTS = ['created', 'paid', 'canceled', 'completed', 'paid_days', 'booking_value_cents'] as const;
type Parts = Record<(typeof PARTS)[number], number>;

const figures = (p: Parts) => ({
  created: p.created, paid: p.paid, canceled: p.canceled, completed: p.completed,
  average_rental_days: ratio(p.paid_days, p.paid, 2), booking_value_cents: p.booking_value_cents,
});

export const bookingsReport = defineOperation({
  name: 'bookingsReport',
  summary: 'Bookings by period',
  description:
    'Bookings by when they were created: per bucket, how many were created, and of those how many are paid, canceled and completed now, with the paid ones\' average rental days and booking value. A past bucket\'s figures change as its bookings move on. `format=csv` or `Accept: text/csv` answers CSV.',
  access: { permission: 'reports:read' },
  args: reportArgs,
  errors: [],
  example: reportExample,
  async run(ctx, args): Promise<Report> {
    const period = await reportPeriod(ctx, args);
    const currency = await reportCurrency(ctx);
    const rows = await ctx.db.$readScoped<Record<string, unknown> & { period_start: Date; period_end: Date }>(Prisma.sql`
      SELECT b.period_start, b.period_end,
        COUNT(k."id")::int AS created,
        COUNT(k."id") FILTER (WHERE k.paid)::int AS paid,
        COUNT(k."id") FILTER (WHERE k."state" IN ('canceled', 'refunded'))::int AS canceled,
        COUNT(k."id") FILTER (WHERE k."state" = 'completed')::int AS completed,
        COALESCE(SUM(k."days") FILTER (WHERE k.paid), 0)::bigint AS paid_days,
        COALESCE(SUM(k."totalCents") FILTER (WHERE k.paid AND k."currency" = ${currency}), 0)::bigint AS booking_value_cents
      FROM ${bucketsSql(period)} AS b
      LEFT JOIN (
        SELECT bk.*, EXISTS (
          SELECT 1 FROM "Transaction" t WHERE t."bookingId" = bk."id" AND t."type" = 'payment' AND t."status" = 'succeeded'
        ) AS paid
        FROM "Booking" bk
        WHERE bk."createdAt" >= ${period.from}::timestamptz AND bk."createdAt" < ${period.to}::timestamptz
      ) k ON k."createdAt" >= b.period_start AND k."createdAt" < b.period_end
      GROUP BY b.period_start, b.period_end
      ORDER BY b.period_start`);
    return bucketReport('bookings', period, currency, rows, PARTS, figures);
  },
});
