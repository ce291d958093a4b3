import { Prisma } from '../../generated/prisma/client.ts';
import { defineOperation } from '../shared/operation.ts';
import { bucketReport, bucketsSql, reportArgs, reportCurrency, reportExample, reportPeriod, type Figure, type Report } from './report.ts';

/** The disputes report's figures, in order. */
export const DISPUTES_FIGURES: Figure[] = [
  { name: 'opened', kind: 'count', description: 'Disputes opened in the bucket.' },
  { name: 'approved', kind: 'count', description: 'Disputes approved in the bucket (when dispute.approved was emitted).' },
  { name: 'closed', kind: 'count', description: 'Disputes closed (the claim rejected) in the bucket (when dispute.closed was emitted).' },
  { name: 'disputed_cents', kind: 'cents', description: "The disputed charges' amounts, of the disputes opened in the bucket." },
  { name: 'approved_cents', kind: 'cents', description: "The disputed charges' amounts, of the disputes approved in the bucket (waived, or refunded if collected)." },
];

const PARTS = ['opened', 'approved', 'closed', 'disputed_cents', 'approved_cents'] as const;

export const disputesReport = defineOperation({
  name: 'disputesReport',
  summary: 'Disputes by period',
  description:
    "Per bucket, disputes opened (by creation) and approved or closed (by the time of that decision), with the disputed charges' amounts. `format=csv` or `Accept: text/csv` answers CSV.",
  access: { permission: 'reports:read' },
  args: reportArgs,
  errors: [],
  example: reportExample,
  async run(ctx, args): Promise<Report> {
    const period = await reportPeriod(ctx, args);
    const currency = await reportCurrency(ctx);
    // One line per fact (opened, approved, closed) at its time, then counted per bucket.
    const rows = await ctx.db.$readScoped<Record<string, unknown> & { period_start: Date; period_end: Date }>(Prisma.sql`
      SELECT b.period_start, b.period_end,
        COUNT(f.kind) FILTER (WHERE f.kind = 'opened')::int AS opened,
        COUNT(f.kind) FILTER (WHERE f.kind = 'approved')::int AS approved,
        COUNT(f.kind) FILTER (WHERE f.kind = 'closed')::int AS closed,
        COALESCE(SUM(f.amount) FILTER (WHERE f.kind = 'opened'), 0)::bigint AS disputed_cents,
        COALESCE(SUM(f.amount) FILTER (WHERE f.kind = 'approved'), 0)::bigint AS approved_cents
      FROM ${bucketsSql(period)} AS b
      LEFT JOIN (
        SELECT 'opened' AS kind, d."createdAt" AS at, c."amountCents" AS amount
          FROM "Dispute" d JOIN "Charge" c ON c."id" = d."chargeId"
         WHERE d."createdAt" >= ${period.from}::timestamptz AND d."createdAt" < ${period.to}::timestamptz
        UNION ALL
        SELECT CASE e."type" WHEN 'dispute.approved' THEN 'approved' ELSE 'closed' END, e."createdAt", c."amountCents"
          FROM "Event" e JOIN "Dispute" d ON d."id" = e."data"->'object'->>'id' JOIN "Charge" c ON c."id" = d."chargeId"
         WHERE e."type" IN ('dispute.approved', 'dispute.closed')
           AND e."createdAt" >= ${period.from}::timestamptz AND e."createdAt" < ${period.to}::timestamptz
      ) f ON f.at >= b.period_start AND f.at < b.period_end
      GROUP BY b.period_start, b.period_end
      ORDER BY b.period_start`);
    return bucketReport('disputes', period, currency, rows, PARTS, (part) => ({ ...part }));
  },
});
