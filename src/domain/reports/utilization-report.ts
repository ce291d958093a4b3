import { Prisma } from '../../generated/prisma/client.ts';
import { defineOperation } from '../shared/operation.ts';
import { bucketRows, bucketsSql, num, partsOf, ratio, reportArgs, reportCurrency, reportExample, reportPeriod, rounded, sumParts, type Figure, type Report } from './report.ts';

/** The utilization report's figures, in order. */
export const UTILIZATION_FIGURES: Figure[] = [
  { name: 'vehicles', kind: 'count', description: 'Vehicles available at some time in the bucket (not archived, created before its end).' },
  { name: 'available_vehicle_hours', kind: 'hours', description: 'Hours each of those vehicles existed in the bucket, summed.' },
  { name: 'booked_vehicle_hours', kind: 'hours', description: "Hours of those vehicles' bookings (every state but canceled and refunded) within the bucket, summed." },
  { name: 'utilization', kind: 'ratio', description: 'booked_vehicle_hours / available_vehicle_hours (null when nothing was available).' },
];

const PARTS = ['available_ms', 'booked_ms'] as const;
type Parts = Record<(typeof PARTS)[number], number>;
const HOUR_MS = 3_600_000;

const figures = (p: Parts, vehicles: number) => ({
  vehicles,
  available_vehicle_hours: rounded(p.available_ms / HOUR_MS, 2),
  booked_vehicle_hours: rounded(p.booked_ms / HOUR_MS, 2),
  utilization: ratio(p.booked_ms, p.available_ms, 4),
});

export const utilizationReport = defineOperation({
  name: 'utilizationReport',
  summary: 'Fleet utilization by period',
  description:
    "Per bucket, the fleet's booked vehicle-hours over its available vehicle-hours: a vehicle is available from its creation unless archived; a booking occupies its vehicle from start_at to end_at unless canceled or refunded, counted within the bucket only. `format=csv` or `Accept: text/csv` answers CSV.",
  access: { permission: 'reports:read' },
  args: reportArgs,
  errors: [],
  example: reportExample,
  async run(ctx, args): Promise<Report> {
    const period = await reportPeriod(ctx, args);
    const currency = await reportCurrency(ctx);
    // Milliseconds are whole (timestamps keep three decimals), so the sums are exact.
    const rows = await ctx.db.$readScoped<Record<string, unknown> & { period_start: Date; period_end: Date }>(Prisma.sql`
      SELECT b.period_start, b.period_end,
        (SELECT COUNT(*) FROM "Vehicle" v WHERE v."status" = 'active' AND v."createdAt" < b.period_end)::int AS vehicles,
        (SELECT COALESCE(SUM(ROUND(EXTRACT(EPOCH FROM (b.period_end - GREATEST(b.period_start, v."createdAt"))) * 1000)), 0)
           FROM "Vehicle" v WHERE v."status" = 'active' AND v."createdAt" < b.period_end)::bigint AS available_ms,
        (SELECT COALESCE(SUM(ROUND(EXTRACT(EPOCH FROM (LEAST(k."endAt", b.period_end) - GREATEST(k."startAt", b.period_start, v."createdAt"))) * 1000)), 0)
           FROM "Booking" k JOIN "Vehicle" v ON v."id" = k."vehicleId"
          WHERE v."status" = 'active' AND k."state" NOT IN ('canceled', 'refunded')
            AND k."startAt" < b.period_end AND k."endAt" > b.period_start AND k."endAt" > v."createdAt" AND v."createdAt" < b.period_end)::bigint AS booked_ms
      FROM ${bucketsSql(period)} AS b
      ORDER BY b.period_start`);
    const parts = rows.map((r) => partsOf(r, PARTS));
    const [{ vehicles }] = await ctx.db.$readScoped<{ vehicles: number }>(Prisma.sql`
      SELECT COUNT(*)::int AS vehicles FROM "Vehicle" v WHERE v."status" = 'active' AND v."createdAt" < ${period.to}::timestamptz`);
    return {
      type: 'utilization',
      ...period,
      currency,
      rows: bucketRows(rows, parts, (part, i) => figures(part, num(rows[i].vehicles))),
      totals: figures(sumParts(parts, PARTS), vehicles),
    };
  },
});
