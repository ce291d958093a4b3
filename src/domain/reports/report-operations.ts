import { z } from 'zod';
import type { DomainContext } from '../shared/context.ts';
import { defineOperation, type Operation } from '../shared/operation.ts';
import { BOOKINGS_FIGURES, bookingsReport } from './bookings-report.ts';
import { DISPUTES_FIGURES, disputesReport } from './disputes-report.ts';
import type { Figure, Report, ReportArgs, reportArgs } from './report.ts';
import { REVENUE_FIGURES, revenueReport } from './revenue-report.ts';
import { UTILIZATION_FIGURES, utilizationReport } from './utilization-report.ts';

type ReportOperation = Operation<typeof reportArgs, Report>;

/** Every report: its operation (the GraphQL field) and its figures, in their order. */
export const REPORTS: readonly { type: Report['type']; operation: ReportOperation; figures: readonly Figure[] }[] = [
  { type: 'revenue', operation: revenueReport, figures: REVENUE_FIGURES },
  { type: 'bookings', operation: bookingsReport, figures: BOOKINGS_FIGURES },
  { type: 'utilization', operation: utilizationReport, figures: UTILIZATION_FIGURES },
  { type: 'disputes', operation: disputesReport, figures: DISPUTES_FIGURES },
];

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
