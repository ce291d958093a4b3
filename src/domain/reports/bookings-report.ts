import { bookingsBuckets } from '../../db/sql/generated/tenant.ts';
import { defineOperation } from '../shared/operation.ts';
import { bucketReport, periodParams, ratio, reportArgs, reportCurrency, reportExample, reportPeriod, type Figure, type Report } from './report.ts';

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

/** A month's figures, for the documentation's examples. */
export const BOOKINGS_EXAMPLE = figures({ created: 3, paid: 2, canceled: 1, completed: 1, paid_days: 5, booking_value_cents: 24500 });

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
    const rows = await ctx.db.$run(bookingsBuckets, { ...periodParams(period), currency });
    return bucketReport('bookings', period, currency, rows, PARTS, figures);
  },
});
