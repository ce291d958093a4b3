import { revenueBuckets, type RevenueBucketsRow } from '../../db/sql/generated/tenant.ts';
import { ChargeType } from '../../generated/prisma/enums.ts';
import { defineOperation } from '../shared/operation.ts';
import { bucketReport, periodParams, reportArgs, reportCurrency, reportExample, reportPeriod, type Figure, type Report } from './report.ts';

const CHARGE_TYPES = Object.values(ChargeType);

/** The revenue report's figures, in order (REST, CSV and GraphQL are made from this). */
export const REVENUE_FIGURES: Figure[] = [
  { name: 'gross_cents', kind: 'cents', description: 'Money collected from customers: payments + charges + deposit_captures.' },
  { name: 'refunds_cents', kind: 'cents', description: 'Money returned to customers (refunds of payments, and of collected charges whose dispute was approved).' },
  { name: 'net_cents', kind: 'cents', description: 'gross_cents − refunds_cents.' },
  { name: 'payments_cents', kind: 'cents', description: "Bookings' payments collected." },
  { name: 'charges_cents', kind: 'cents', description: 'Post-trip charges collected by card.' },
  { name: 'deposit_captures_cents', kind: 'cents', description: 'Deposit captures (for a charge or not).' },
  ...CHARGE_TYPES.map((type) => ({ name: `charges_${type}_cents`, kind: 'cents' as const, description: `Post-trip ${type} charges collected, by card or from the deposit.` })),
];

type Parts = Record<string, number>;

// The statement has a column for each charge type: a type added to the schema fails to compile until it does.
const everyChargeType: [Exclude<`charges_${ChargeType}_cents`, keyof RevenueBucketsRow>] extends [never] ? true : false = true;
void everyChargeType;
const PARTS = ['payments_cents', 'refunds_cents', 'charges_cents', 'deposit_captures_cents', ...CHARGE_TYPES.map((t) => `charges_${t}_cents`)];

function figures(p: Parts) {
  const gross = p.payments_cents + p.charges_cents + p.deposit_captures_cents;
  return { gross_cents: gross, refunds_cents: p.refunds_cents, net_cents: gross - p.refunds_cents, payments_cents: p.payments_cents, charges_cents: p.charges_cents, deposit_captures_cents: p.deposit_captures_cents, ...Object.fromEntries(CHARGE_TYPES.map((t) => [`charges_${t}_cents`, p[`charges_${t}_cents`]])) };
}

/** A month's figures, for the documentation's examples. */
export const REVENUE_EXAMPLE = figures({
  payments_cents: 24500, refunds_cents: 2500, charges_cents: 17500, deposit_captures_cents: 8000,
  ...Object.fromEntries(CHARGE_TYPES.map((t) => [`charges_${t}_cents`, { mileage: 17500, damage: 8000 }[t as string] ?? 0])),
});

export const revenueReport = defineOperation({
  name: 'revenueReport',
  summary: 'Revenue by period',
  description:
    "Money moved, by when it moved: the business's succeeded transactions in its currency, summed per bucket (gross, refunds, net, payments, charges collected by card and by type, deposit captures). The transactions are the record that reconciles. `format=csv` or `Accept: text/csv` answers CSV.",
  access: { permission: 'reports:read' },
  args: reportArgs,
  errors: [],
  example: reportExample,
  async run(ctx, args): Promise<Report> {
    const period = await reportPeriod(ctx, args);
    const currency = await reportCurrency(ctx);
    const rows = await ctx.db.$run(revenueBuckets, { ...periodParams(period), currency });
    return bucketReport('revenue', period, currency, rows, PARTS, figures);
  },
});
