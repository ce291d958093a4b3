import { builder } from '../builder.ts';
import { REPORTS } from '../domain/reports/report-operations.ts';
import { GROUPINGS, type Figure, type Figures, type Report, type ReportRow, type VehicleFigures } from '../domain/reports/report.ts';
import { enumType } from './enums.ts';
import { operationField } from './operation-field.ts';

/*
 * The reports over GraphQL: one field each (revenueReport, ...), whose row and totals types
 * are made from the report's figures, the same declaration REST and CSV are made from.
 */

const camel = (name: string) => name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
const pascal = (type: string) => type[0].toUpperCase() + type.slice(1);

// Sums of cents are Floats holding integers: a year's revenue may pass GraphQL's 32-bit Int.
const NOTE: Record<Figure['kind'], string> = {
  cents: ' Integer cents.',
  count: '',
  hours: ' Two decimals.',
  days: ' Two decimals.',
  ratio: ' Four decimals.',
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function figureFields(t: any, figures: readonly Figure[], of: (parent: any) => Figures) {
  return Object.fromEntries(
    figures.map((f) => [
      camel(f.name),
      t.field({
        type: f.kind === 'count' ? 'Int' : 'Float',
        nullable: f.kind === 'days' || f.kind === 'ratio',
        description: f.description + NOTE[f.kind],
        resolve: (parent: unknown) => of(parent)[f.name],
      }),
    ]),
  );
}

const grouping = enumType('ReportGrouping', GROUPINGS, 'Bucket size: day, week (Monday to Monday) or month, cut at midnight of the report\'s time zone.');

const reportFields = REPORTS.map(({ type, operation, figures, vehicleFigures }) => {
      const name = `${pascal(type)}Report`;
      const Row = builder.objectRef<ReportRow>(`${name}Row`).implement({
        description: `One bucket of the ${type} report.`,
        fields: (r) => ({
          periodStart: r.expose('periodStart', { type: 'DateTime', description: 'Start of the bucket (inclusive; the period start for the first).' }),
          periodEnd: r.expose('periodEnd', { type: 'DateTime', description: 'End of the bucket (exclusive; the period end for the last).' }),
          ...figureFields(r, figures, (row: ReportRow) => row.figures),
        }),
      });
      const Totals = builder.objectRef<Figures>(`${name}Totals`).implement({
        description: `The ${type} report's figures over the whole period.`,
        fields: (r) => figureFields(r, figures, (totals: Figures) => totals),
      });
      const ByVehicle = vehicleFigures
        ? builder.objectRef<VehicleFigures>(`${name}Vehicle`).implement({
            description: `One vehicle's figures in the ${type} report, over the whole period.`,
            fields: (r) => ({
              vehicleId: r.exposeID('vehicleId'),
              name: r.exposeString('name'),
              archivedAt: r.expose('archivedAt', { type: 'DateTime', nullable: true, description: 'When it was archived: it counts until then.' }),
              ...figureFields(r, vehicleFigures, (v: VehicleFigures) => v.figures),
            }),
          })
        : null;
      const Ref = builder.objectRef<Report>(name).implement({
        description: operation.summary,
        fields: (r) => ({
          type: r.exposeString('type'),
          from: r.expose('from', { type: 'DateTime' }),
          to: r.expose('to', { type: 'DateTime' }),
          groupBy: r.field({ type: grouping, resolve: (report: Report) => report.groupBy }),
          timezone: r.exposeString('timezone', { description: 'The IANA time zone whose midnights cut the buckets.' }),
          currency: r.exposeString('currency', { description: "The business's currency: money figures count movements in it." }),
          rows: r.field({ type: [Row], resolve: (report: Report) => report.rows }),
          totals: r.field({ type: Totals, resolve: (report: Report) => report.totals }),
          ...(ByVehicle
            ? {
                byVehicle: r.field({
                  type: [ByVehicle],
                  description: 'Each vehicle in the fleet at some time of the period (an archived one included, for the time before it was archived), by vehicle id.',
                  resolve: (report: Report) => report.byVehicle ?? [],
                }),
              }
            : {}),
        }),
      });
      return { name: `${type}Report`, field: operationField(operation), Ref };
});

builder.queryFields((t) => Object.fromEntries(reportFields.map(({ name, field, Ref }) => [name, field.plain(t, Ref)])));
