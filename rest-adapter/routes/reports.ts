import { REPORTS, restReportOperation, type ReportFormat } from '../../src/domain/reports/report-operations.ts';
import type { Figure, Report } from '../../src/domain/reports/report.ts';
import { presentReport, reportCsv, reportFileName } from '../../src/domain/reports/report-presenter.ts';
import { CommonErrors } from '../../src/domain/shared/common.errors.ts';
import { jsonAnswer } from '../../src/http/edge/runner.ts';
import type { HandlerRoute } from '../route.ts';

/** REST query parameters → the operation's arguments. */
const PARAMS: Record<string, string> = { from: 'from', to: 'to', group_by: 'groupBy', timezone: 'timezone', format: 'format' };

/** The query's arguments (the edge checked their text); an unknown parameter is a 422 naming it. */
function argumentsOf(query: URLSearchParams): Record<string, string> {
  const args: Record<string, string> = {};
  for (const [key, raw] of query) {
    const name = PARAMS[key];
    if (!name) throw CommonErrors.parameterUnknown(key);
    args[name] = raw;
  }
  return args;
}

/** `format` decides; without it, an Accept header naming text/csv asks for CSV. */
const wantsCsv = (format: string | undefined, accept: string | null) => (format ?? (/\btext\/csv\b/i.test(accept ?? '') ? 'csv' : 'json')) === ('csv' satisfies ReportFormat);

/** The JSON answer of a report (presentReport), its figures as the report declares them. */
function reportSchema(type: Report['type'], figures: readonly Figure[]) {
  const figureSchemas = Object.fromEntries(
    figures.map((f) => [f.name, f.kind === 'cents' || f.kind === 'count' ? { type: 'integer', description: f.description } : { anyOf: [{ type: 'number' }, { type: 'null' }], description: f.description }]),
  );
  const names = figures.map((f) => f.name);
  const time = (description: string) => ({ type: 'string', format: 'date-time', description });
  return {
    type: 'object',
    required: ['object', 'type', 'from', 'to', 'group_by', 'timezone', 'currency', 'rows', 'totals'],
    properties: {
      object: { type: 'string', const: 'report' },
      type: { type: 'string', const: type },
      from: time('Start of the period.'),
      to: time('End of the period.'),
      group_by: { type: 'string', enum: ['day', 'week', 'month'], description: 'Bucket size.' },
      timezone: { type: 'string', description: 'The IANA time zone whose midnights cut the buckets.' },
      currency: { type: 'string', description: "The business's currency (ISO 4217, lower case)." },
      rows: {
        type: 'array',
        description: 'One row per bucket, oldest first.',
        items: { type: 'object', required: ['period_start', 'period_end', ...names], properties: { period_start: time('Start of the bucket.'), period_end: time('End of the bucket.'), ...figureSchemas } },
      },
      totals: { type: 'object', description: 'The figures over the whole period.', required: names, properties: figureSchemas },
    },
  };
}

/**
 * The reports: one route each, answering JSON or CSV (so a route that answers itself). The
 * operation checks access and validates; the rows come from the domain.
 */
export const reportRoutes: HandlerRoute[] = REPORTS.map(({ type, operation, figures }) => {
  const rest = restReportOperation(operation);
  return {
    method: 'GET',
    path: `/v1/reports/${type}`,
    operation: rest,
    produces: 'application/json',
    answers: { 'application/json': reportSchema(type, figures), 'text/csv': { type: 'string', description: 'RFC 4180: a header row (period_start, period_end, then the figures), one line per bucket.' } },
    stage: 'later_scope',
    async handler({ domain, request }) {
      const args = argumentsOf(request.searchParams);
      const report = (await rest.call(domain, args)) as Report;
      if (!wantsCsv(args.format, request.header('accept'))) return jsonAnswer(200, presentReport(report));
      return {
        status: 200,
        headers: { 'content-type': 'text/csv; charset=utf-8; header=present', 'content-disposition': `attachment; filename="${reportFileName(report)}"` },
        body: reportCsv(report, figures),
      };
    },
  };
});
