import { fleetVehicles, utilizationBuckets } from '../../db/sql/generated/tenant.ts';
import { defineOperation } from '../shared/operation.ts';
import { bucketRows, periodParams, partsOf, ratio, reportArgs, reportCurrency, reportExample, reportPeriod, rounded, sumParts, type Figure, type Report } from './report.ts';

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
    const rows = await ctx.db.$run(utilizationBuckets, periodParams(period));
    const parts = rows.map((r) => partsOf(r, PARTS));
    const [{ vehicles }] = await ctx.db.$run(fleetVehicles, { before: period.to });
    return {
      type: 'utilization',
      ...period,
      currency,
      rows: bucketRows(rows, parts, (part, i) => figures(part, rows[i].vehicles)),
      totals: figures(sumParts(parts, PARTS), vehicles),
    };
  },
});
