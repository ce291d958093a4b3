import { REPORTS, restReportOperation, type ReportFormat } from '../../src/domain/reports/report-operations.ts';
import type { Report } from '../../src/domain/reports/report.ts';
import { presentReport, reportCsv, reportFileName } from '../../src/domain/reports/report-presenter.ts';
import { CommonErrors } from '../../src/domain/shared/common.errors.ts';
import { jsonResponse } from '../../src/http/error-envelope.ts';
import { inputProblem } from '../../src/http/input-safety.ts';
import type { HandlerRoute } from '../route.ts';

/** REST query parameters → the operation's arguments. */
const PARAMS: Record<string, string> = { from: 'from', to: 'to', group_by: 'groupBy', timezone: 'timezone', format: 'format' };

/** The query's arguments; an unknown or unsafe parameter is a 422 naming it. */
function argumentsOf(url: URL): Record<string, string> {
  const args: Record<string, string> = {};
  for (const [key, raw] of url.searchParams) {
    const name = PARAMS[key];
    if (!name) throw CommonErrors.parameterUnknown(key);
    const problem = inputProblem(raw, [key]);
    if (problem) throw problem;
    args[name] = raw;
  }
  return args;
}

/** `format` decides; without it, an Accept header naming text/csv asks for CSV. */
const wantsCsv = (format: string | undefined, accept: string | null) => (format ?? (/\btext\/csv\b/i.test(accept ?? '') ? 'csv' : 'json')) === ('csv' satisfies ReportFormat);

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
    stage: 'later_scope',
    async handler({ domain, request }) {
      const args = argumentsOf(new URL(request.url));
      const report = (await rest.call(domain, args)) as Report;
      if (!wantsCsv(args.format, request.headers.get('accept'))) return jsonResponse(200, presentReport(report));
      return new Response(reportCsv(report, figures), {
        headers: { 'content-type': 'text/csv; charset=utf-8; header=present', 'content-disposition': `attachment; filename="${reportFileName(report)}"` },
      });
    },
  };
});
