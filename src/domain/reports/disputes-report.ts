import { disputesBuckets } from '../../db/sql/generated/tenant.ts';
import { defineOperation } from '../shared/operation.ts';
import { bucketReport, periodParams, reportArgs, reportCurrency, reportExample, reportPeriod, type Figure, type Report } from './report.ts';

/** The disputes report's figures, in order. */
export const DISPUTES_FIGURES: Figure[] = [
  { name: 'opened', kind: 'count', description: 'Disputes opened in the bucket.' },
  { name: 'approved', kind: 'count', description: 'Disputes approved in the bucket (when dispute.approved was emitted).' },
  { name: 'closed', kind: 'count', description: 'Disputes closed (the claim rejected) in the bucket (when dispute.closed was emitted).' },
  { name: 'disputed_cents', kind: 'cents', description: "The disputed charges' amounts, of the disputes opened in the bucket." },
  { name: 'approved_cents', kind: 'cents', description: "The disputed charges' amounts, of the disputes approved in the bucket (waived, or refunded if collected)." },
];

const PARTS = ['opened', 'approved', 'closed', 'disputed_cents', 'approved_cents'] as const;

/** A month's figures, for the documentation's examples. */
export const DISPUTES_EXAMPLE = { opened: 2, approved: 1, closed: 0, disputed_cents: 20500, approved_cents: 17500 };

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
    const rows = await ctx.db.$run(disputesBuckets, periodParams(period));
    return bucketReport('disputes', period, currency, rows, PARTS, (part) => ({ ...part }));
  },
});
