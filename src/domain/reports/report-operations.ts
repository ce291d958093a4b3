import { z } from 'zod';
import type { DomainContext } from '../shared/context.ts';
import { defineOperation, type Operation } from '../shared/operation.ts';
import { BOOKINGS_EXAMPLE, BOOKINGS_FIGURES, bookingsReport } from './bookings-report.ts';
import { DISPUTES_EXAMPLE, DISPUTES_FIGURES, disputesReport } from './disputes-report.ts';
import type { Figure, Figures, Report, ReportArgs, reportArgs, VehicleFigures } from './report.ts';
import { REVENUE_EXAMPLE, REVENUE_FIGURES, revenueReport } from './revenue-report.ts';
import { UTILIZATION_EXAMPLE, UTILIZATION_FIGURES, utilizationReport, VEHICLE_UTILIZATION_FIGURES } from './utilization-report.ts';

type ReportOperation = Operation<typeof reportArgs, Report>;

export interface ReportDeclaration {
  type: Report['type'];
  /** The GraphQL field, and the REST route's operation once `format` is added. */
  operation: ReportOperation;
  /** Its figures, in their order. */
  figures: readonly Figure[];
  /** The figures of its per-vehicle breakdown, where it has one (`by_vehicle`: JSON and GraphQL only). */
  vehicleFigures?: readonly Figure[];
  /** A month of it, for the documentation's examples. */
  example: { totals: Figures; byVehicle?: VehicleFigures[] };
}

/** Every report. */
export const REPORTS: readonly ReportDeclaration[] = [
  { type: 'revenue', operation: revenueReport, figures: REVENUE_FIGURES, example: { totals: REVENUE_EXAMPLE } },
  { type: 'bookings', operation: bookingsReport, figures: BOOKINGS_FIGURES, example: { totals: BOOKINGS_EXAMPLE } },
  { type: 'utilization', operation: utilizationReport, figures: UTILIZATION_FIGURES, vehicleFigures: VEHICLE_UTILIZATION_FIGURES, example: UTILIZATION_EXAMPLE },
  { type: 'disputes', operation: disputesReport, figures: DISPUTES_FIGURES, example: { totals: DISPUTES_EXAMPLE } },
];

/** A report of March 2026 by month (one bucket), made of its declared example: what the documentation shows. */
export function exampleReport(report: ReportDeclaration): Report {
  const from = new Date('2026-03-01T00:00:00Z');
  const to = new Date('2026-04-01T00:00:00Z');
  const { totals, byVehicle } = report.example;
  return { type: report.type, from, to, groupBy: 'month', timezone: 'UTC', currency: 'usd', rows: [{ periodStart: from, periodEnd: to, figures: totals }], totals, ...(byVehicle ? { byVehicle } : {}) };
}

export const REPORT_FORMATS = ['json', 'csv'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/**
 * The report over REST: the same operation, plus `format` (the answer's form, which GraphQL
 * has no use for). Access, validation and docs are the report's own.
 */
export function restReportOperation(report: ReportOperation): Operation {
  const args = report.args.extend({
    format: z
      .enum(REPORT_FORMATS)
      .nullish()
      .meta({ description: 'json (the default) or csv (RFC 4180, a header row, money in cents); `Accept: text/csv` asks for csv too.' }),
  });
  return defineOperation({
    ...report,
    args,
    example: { ...report.example!, format: 'json' },
    run: (ctx: DomainContext, { format: _format, ...period }: z.output<typeof args>, extras) => report.run(ctx, period as ReportArgs, extras),
  });
}
