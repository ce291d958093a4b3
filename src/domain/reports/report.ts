import { z } from 'zod';
import { reportDefaultPeriod, timeZoneKnown } from '../../db/sql/generated/tenant.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import type { DomainContext } from '../shared/context.ts';
import { timestamp } from '../shared/validation.ts';

/*
 * What every report shares: a period cut into buckets (day, week from Monday, month, in UTC),
 * figures declared once (REST JSON, CSV and the GraphQL types are all made from the
 * declaration), and rows read by one named SQL statement (src/db/sql/tenant/*.sql) through the
 * tenant scope, which supplies the business and environment.
 */

export const GROUPINGS = ['day', 'week', 'month'] as const;
export type Grouping = (typeof GROUPINGS)[number];
export const MAX_REPORT_DAYS = 400;
/** How many days a report covers when `from` is left out. */
export const DEFAULT_REPORT_DAYS = 30;

export const reportArgs = z.object({
  from: timestamp(`Start of the period (inclusive), ISO 8601 with a UTC offset. By default ${DEFAULT_REPORT_DAYS} days of \`timezone\` before \`to\`.`).nullish(),
  to: timestamp(
    `End of the period (exclusive), after \`from\` and at most ${MAX_REPORT_DAYS} days from it. By default the end of today: the next midnight of \`timezone\`, by the sandbox clock for a test key.`,
  ).nullish(),
  groupBy: z
    .enum(GROUPINGS)
    .meta({ id: 'ReportGrouping', description: 'Bucket size: day, week (Monday to Monday) or month, cut at midnight of the report\'s time zone.' })
    .nullish()
    .meta({ description: 'Bucket size: day (the default), week (starting Monday) or month; boundaries at midnight of `timezone`.' }),
  timezone: z
    .string()
    .min(1)
    .max(64)
    .nullish()
    .meta({ description: 'The IANA time zone whose midnights cut the buckets (Europe/Berlin); UTC by default. A day of a daylight-saving change has 23 or 25 hours.' }),
});
export type ReportArgs = z.output<typeof reportArgs>;

export const reportExample = { from: '2026-03-01T00:00:00Z', to: '2026-04-01T00:00:00Z', groupBy: 'week', timezone: 'America/Chicago' } as const;

/**
 * How a figure is counted and shown: `cents` and `count` are integers; `hours` (two
 * decimals), `days` (two decimals, an average) and `ratio` (four decimals) are derived from
 * integer parts, and are null when their denominator is zero.
 */
export type FigureKind = 'cents' | 'count' | 'hours' | 'days' | 'ratio';
export interface Figure {
  /** REST and CSV name (snake_case); GraphQL's is its camelCase. */
  name: string;
  kind: FigureKind;
  description: string;
}

export type Figures = Record<string, number | null>;

export interface ReportRow {
  periodStart: Date;
  periodEnd: Date;
  figures: Figures;
}

/** One vehicle's figures over a report's whole period (the utilization report's breakdown). */
export interface VehicleFigures {
  vehicleId: string;
  name: string;
  /** When it left the fleet, if it has: it counts until then. */
  archivedAt: Date | null;
  figures: Figures;
}

export interface Report {
  type: 'revenue' | 'bookings' | 'utilization' | 'disputes';
  from: Date;
  to: Date;
  groupBy: Grouping;
  timezone: string;
  currency: string;
  rows: ReportRow[];
  totals: Figures;
  /** The utilization report's figures per vehicle. */
  byVehicle?: VehicleFigures[];
}

/** A validated period and grouping. */
export interface ReportPeriod {
  from: Date;
  to: Date;
  groupBy: Grouping;
  timezone: string;
}

/** Zones the database knows, learnt once per process (its list and the runtime's may differ). */
const knownZones = new Set<string>(['UTC']);

export async function reportPeriod(ctx: DomainContext, args: ReportArgs): Promise<ReportPeriod> {
  const groupBy = args.groupBy ?? 'day';
  const timezone = args.timezone ?? 'UTC';
  if (!knownZones.has(timezone)) {
    const [{ known }] = await ctx.db.$run(timeZoneKnown, { name: timezone });
    if (!known) throw CommonErrors.parameterInvalid('timezone', `Invalid timezone: '${timezone}' is not an IANA time zone name (e.g. Europe/Berlin).`);
    knownZones.add(timezone);
  }
  let { from, to } = args;
  if (!from || !to) {
    // "Today" is the request's: the sandbox's for a test key whose clock was advanced.
    const [open] = await ctx.db.$run(reportDefaultPeriod, { end: to ?? ctx.now(), roundUp: !to, timezone, days: DEFAULT_REPORT_DAYS });
    from ??= open.period_from;
    to = open.period_to;
  }
  if (to.getTime() <= from.getTime()) {
    throw CommonErrors.parameterInvalid('to', args.to ? 'Invalid to: the period must end after `from`.' : `Invalid to: the period must end after \`from\`; without \`to\` it ends at the end of today (${to.toISOString()}).`);
  }
  if (to.getTime() - from.getTime() > MAX_REPORT_DAYS * 86_400_000) {
    throw CommonErrors.parameterInvalid('to', `Invalid to: a report covers at most ${MAX_REPORT_DAYS} days.`);
  }
  return { from, to, groupBy, timezone };
}

/** A period's parameters of the report statements, whose buckets it cuts (see their files). */
export const periodParams = (period: ReportPeriod) => ({ from: period.from, to: period.to, timezone: period.timezone, grouping: period.groupBy });

/** The business's currency: money figures count movements in it. */
export async function reportCurrency(ctx: DomainContext): Promise<string> {
  const business = await ctx.db.business.findUnique({ where: { id: ctx.tenant.businessId }, select: { currency: true } });
  return business?.currency ?? 'usd';
}

/** Numbers as SQL hands them back (bigint sums, numeric epochs) → JS numbers. */
export const num = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value));

export const rounded = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;
export const ratio = (part: number, whole: number, places: number) => (whole === 0 ? null : rounded(part / whole, places));

/** Sum the integer parts of every row: the buckets partition the period, so these are the period's own. */
export function sumParts<P extends Record<string, number>>(rows: P[], keys: readonly (keyof P)[]): P {
  const total = Object.fromEntries(keys.map((k) => [k, 0])) as Record<keyof P, number>;
  for (const row of rows) for (const k of keys) total[k] += row[k];
  return total as P;
}

/** A bucket row's integer parts, as SQL returned them (bigint counts and sums arrive as strings). */
export function partsOf<K extends string>(row: object, keys: readonly K[]): Record<K, number> {
  return Object.fromEntries(keys.map((k) => [k, num((row as Record<string, unknown>)[k])])) as Record<K, number>;
}

/** The report's rows: each bucket with the figures made from its parts. */
export function bucketRows<P>(rows: { period_start: Date; period_end: Date }[], parts: P[], figuresOf: (part: P, i: number) => Figures): ReportRow[] {
  return rows.map((r, i) => ({ periodStart: r.period_start, periodEnd: r.period_end, figures: figuresOf(parts[i], i) }));
}

/** A report whose figures come from its bucket rows' parts alone: each bucket's, and the period's from the summed parts. */
export function bucketReport<K extends string>(
  type: Report['type'],
  period: ReportPeriod,
  currency: string,
  rows: { period_start: Date; period_end: Date }[],
  keys: readonly K[],
  figuresOf: (parts: Record<K, number>) => Figures,
): Report {
  const parts = rows.map((r) => partsOf(r, keys));
  return { type, ...period, currency, rows: bucketRows(rows, parts, figuresOf), totals: figuresOf(sumParts(parts, keys)) };
}
