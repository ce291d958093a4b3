import { utilizationBuckets, utilizationVehicles } from '../../db/sql/generated/tenant.ts';
import { defineOperation } from '../shared/operation.ts';
import { bucketRows, periodParams, partsOf, ratio, reportArgs, reportCurrency, reportExample, reportPeriod, rounded, sumParts, type Figure, type Report } from './report.ts';

/** The figures of one vehicle over the period (the report's `by_vehicle`), in order. */
export const VEHICLE_UTILIZATION_FIGURES: Figure[] = [
  { name: 'available_vehicle_hours', kind: 'hours', description: 'Hours the vehicle was in the fleet (from its creation until it was archived, if it was) within the period.' },
  { name: 'booked_vehicle_hours', kind: 'hours', description: "Hours of the vehicle's bookings (every state but canceled and refunded) within those." },
  { name: 'utilization', kind: 'ratio', description: 'booked_vehicle_hours / available_vehicle_hours (null when the vehicle was in the fleet for no time).' },
];

/** The utilization report's figures, in order. */
export const UTILIZATION_FIGURES: Figure[] = [
  { name: 'vehicles', kind: 'count', description: 'Vehicles in the fleet at some time in the bucket (created before its end, not archived before its start).' },
  { name: 'available_vehicle_hours', kind: 'hours', description: 'Hours each of those vehicles was in the fleet within the bucket (from its creation until it was archived, if it was), summed.' },
  { name: 'booked_vehicle_hours', kind: 'hours', description: "Hours of those vehicles' bookings (every state but canceled and refunded) within those hours, summed." },
  { name: 'utilization', kind: 'ratio', description: 'booked_vehicle_hours / available_vehicle_hours (null when nothing was available).' },
];

const PARTS = ['available_ms', 'booked_ms'] as const;
type Parts = Record<(typeof PARTS)[number], number>;
const HOUR_MS = 3_600_000;

const hours = (p: Parts) => ({
  available_vehicle_hours: rounded(p.available_ms / HOUR_MS, 2),
  booked_vehicle_hours: rounded(p.booked_ms / HOUR_MS, 2),
  utilization: ratio(p.booked_ms, p.available_ms, 4),
});

/** March's figures of two vehicles, for the documentation's examples. */
export const UTILIZATION_EXAMPLE = {
  totals: { vehicles: 2, ...hours({ available_ms: 1488 * HOUR_MS, booked_ms: 156 * HOUR_MS }) },
  byVehicle: [
    { vehicleId: 'veh_01jd3m4k5n6p7q8r9s0t1v2w3x', name: 'Blue Civic', archivedAt: null, figures: hours({ available_ms: 744 * HOUR_MS, booked_ms: 84 * HOUR_MS }) },
    { vehicleId: 'veh_01jd3m4k5n6p7q8r9s0t1v2w3y', name: 'White Transit', archivedAt: null, figures: hours({ available_ms: 744 * HOUR_MS, booked_ms: 72 * HOUR_MS }) },
  ],
};

export const utilizationReport = defineOperation({
  name: 'utilizationReport',
  summary: 'Fleet utilization by period',
  description:
    "Per bucket, the fleet's booked vehicle-hours over its available vehicle-hours, and the same per vehicle over the whole period (`by_vehicle`): a vehicle is available from its creation until it is archived (an archived vehicle still counts in the buckets before that); a booking occupies its vehicle from start_at to end_at unless canceled or refunded, counted within the bucket only. `format=csv` or `Accept: text/csv` answers CSV (the buckets).",
  access: { permission: 'reports:read' },
  args: reportArgs,
  errors: [],
  example: reportExample,
  async run(ctx, args): Promise<Report> {
    const period = await reportPeriod(ctx, args);
    const currency = await reportCurrency(ctx);
    const rows = await ctx.db.$run(utilizationBuckets, periodParams(period));
    const parts = rows.map((r) => partsOf(r, PARTS));
    const vehicles = await ctx.db.$run(utilizationVehicles, { from: period.from, to: period.to });
    return {
      type: 'utilization',
      ...period,
      currency,
      rows: bucketRows(rows, parts, (part, i) => ({ vehicles: rows[i].vehicles, ...hours(part) })),
      totals: { vehicles: vehicles.length, ...hours(sumParts(parts, PARTS)) },
      byVehicle: vehicles.map((v) => ({ vehicleId: v.vehicle_id, name: v.name, archivedAt: v.archived_at, figures: hours(partsOf(v, PARTS)) })),
    };
  },
});
