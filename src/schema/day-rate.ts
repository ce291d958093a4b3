import { builder } from '../builder.ts';
import { storedDayRates } from '../domain/quotes/day-rates.ts';
import type { DayRate } from '../domain/quotes/pricing.ts';
import { enumType } from './enums.ts';

const DayRule = enumType('DayRule', ['seasonal', 'weekend', 'base'], 'The rule that priced a day: a seasonal rate, the weekend rate, or the base daily rate (in that precedence).');

export const DayRateRef = builder.objectRef<DayRate>('DayRate').implement({
  description: 'The price of one rental day and the rule that set it.',
  fields: (t) => ({
    date: t.exposeString('date', { description: 'The rental day (YYYY-MM-DD, business time zone).' }),
    rule: t.field({ type: DayRule, resolve: (d) => d.rule }),
    rateCents: t.int({ resolve: (d) => d.rate_cents }),
    season: t.string({ nullable: true, description: "The seasonal rate's name, if it has one.", resolve: (d) => d.season ?? null }),
  }),
});

/** The `dayRates` field of a priced object (quote, booking): the days of its price snapshot. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const dayRatesField = (t: any) =>
  t.field({
    type: [DayRateRef],
    description: 'The price of each rental day, in order; rental_cents is their sum.',
    select: { dayRates: true },
    resolve: (row: { dayRates: unknown }) => storedDayRates(row.dayRates),
  });
