import type { Figure, Report } from './report.ts';

/** A report as REST answers it: snake_case, timestamps in ISO 8601 UTC, figures by their names. */
export function presentReport(report: Report) {
  return {
    object: 'report',
    type: report.type,
    from: report.from.toISOString(),
    to: report.to.toISOString(),
    group_by: report.groupBy,
    timezone: report.timezone,
    currency: report.currency,
    rows: report.rows.map((row) => ({ period_start: row.periodStart.toISOString(), period_end: row.periodEnd.toISOString(), ...row.figures })),
    totals: report.totals,
    ...(report.byVehicle
      ? { by_vehicle: report.byVehicle.map((v) => ({ vehicle_id: v.vehicleId, name: v.name, archived_at: v.archivedAt?.toISOString() ?? null, ...v.figures })) }
      : {}),
  };
}

/** One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break; quotes doubled. */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * A report as CSV (RFC 4180): a header row, then one line per bucket, lines ending in CRLF.
 * Money is integer cents; a figure without a value (an average of nothing) is empty.
 */
export function reportCsv(report: Report, figures: readonly Figure[]): string {
  const header = ['period_start', 'period_end', ...figures.map((f) => f.name)];
  const lines = report.rows.map((row) => [row.periodStart.toISOString(), row.periodEnd.toISOString(), ...figures.map((f) => row.figures[f.name] ?? null)]);
  return [header, ...lines].map((line) => line.map(csvField).join(',')).join('\r\n') + '\r\n';
}

/** A file name for the CSV download: the report and its period's days. */
export function reportFileName(report: Report): string {
  return `${report.type}-report-${report.from.toISOString().slice(0, 10)}-${report.to.toISOString().slice(0, 10)}.csv`;
}
