import { exampleReport, REPORTS, restReportOperation, type ReportFormat } from '../../src/domain/reports/report-operations.ts';
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

const integral = (f: Figure) => f.kind === 'cents' || f.kind === 'count';
const figureSchemas = (figures: readonly Figure[]) =>
  Object.fromEntries(figures.map((f) => [f.name, integral(f) ? { type: 'integer', description: f.description } : { anyOf: [{ type: 'number' }, { type: 'null' }], description: f.description }]));
const time = (description: string) => ({ type: 'string', format: 'date-time', description });

/** The JSON answer of a report (presentReport), its figures as the report declares them. */
function reportSchema(type: Report['type'], figures: readonly Figure[], vehicleFigures?: readonly Figure[]) {
  const names = figures.map((f) => f.name);
  const byVehicle = vehicleFigures && {
    by_vehicle: {
      type: 'array',
      description: 'Each vehicle in the fleet at some time of the period (an archived one included, for the time before it was archived), with its figures over the whole period; by vehicle id.',
      items: {
        type: 'object',
        required: ['vehicle_id', 'name', 'archived_at', ...vehicleFigures.map((f) => f.name)],
        properties: {
          vehicle_id: { type: 'string', description: 'The vehicle (veh_...).' },
          name: { type: 'string' },
          archived_at: { anyOf: [time('When it was archived: it counts until then.'), { type: 'null' }] },
          ...figureSchemas(vehicleFigures),
        },
      },
    },
  };
  return {
    type: 'object',
    required: ['object', 'type', 'from', 'to', 'group_by', 'timezone', 'currency', 'rows', 'totals', ...(byVehicle ? ['by_vehicle'] : [])],
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
        items: { type: 'object', required: ['period_start', 'period_end', ...names], properties: { period_start: time('Start of the bucket.'), period_end: time('End of the bucket.'), ...figureSchemas(figures) } },
      },
      totals: { type: 'object', description: 'The figures over the whole period.', required: names, properties: figureSchemas(figures) },
      ...byVehicle,
    },
  };
}

const KIND_NOTE: Record<Figure['kind'], string> = {
  cents: 'Integer cents.',
  count: 'An integer.',
  hours: 'Hours, two decimals.',
  days: 'Days, two decimals; empty when there is nothing to average.',
  ratio: 'A ratio, four decimals; empty when its denominator is zero.',
};

/**
 * The CSV answer: a string whose columns are listed in its description and, for tools, in
 * `x-csv-columns` (name, type, description), in their order.
 */
function csvSchema(figures: readonly Figure[]) {
  const columns: { name: string; type: string; format?: string; description: string }[] = [
    { name: 'period_start', type: 'string', format: 'date-time', description: 'Start of the bucket (inclusive), ISO 8601 in UTC.' },
    { name: 'period_end', type: 'string', format: 'date-time', description: 'End of the bucket (exclusive), ISO 8601 in UTC.' },
    ...figures.map((f) => ({ name: f.name, type: integral(f) ? 'integer' : 'number', description: `${f.description} ${KIND_NOTE[f.kind]}` })),
  ];
  return {
    type: 'string',
    description: [
      'RFC 4180, UTF-8: a header row naming the columns, then one line per bucket, oldest first; lines end in CRLF, a field holding a comma, a quote or a line break is quoted. The totals (and a per-vehicle breakdown) are in the JSON answer only. The columns, in order:',
      '',
      ...columns.map((c) => `- \`${c.name}\` (${c.format ?? c.type}): ${c.description}`),
    ].join('\n'),
    'x-csv-columns': columns,
  };
}

/**
 * The reports: one route each, answering JSON or CSV (so a route that answers itself). The
 * operation checks access and validates; the rows come from the domain.
 */
export const reportRoutes: HandlerRoute[] = REPORTS.map((declaration) => {
  const { type, operation, figures, vehicleFigures } = declaration;
  const rest = restReportOperation(operation);
  const example = exampleReport(declaration);
  return {
    method: 'GET',
    path: `/v1/reports/${type}`,
    operation: rest,
    produces: 'application/json',
    answers: {
      'application/json': { schema: reportSchema(type, figures, vehicleFigures), example: presentReport(example) },
      'text/csv': { schema: csvSchema(figures), example: reportCsv(example, figures) },
    },
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
