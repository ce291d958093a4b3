import { builder } from '../builder.ts';
import { QUOTE_FIELDS } from '../domain/quotes/quote.fields.ts';
import { createQuote } from '../domain/quotes/create-quote.ts';
import { getQuote } from '../domain/quotes/get-quote.ts';
import { dayRatesField } from './day-rate.ts';
import { enums } from './enums.ts';
import { exposePublicFields } from './fields.ts';
import { operationField } from './operation-field.ts';

builder.prismaObject('Quote', {
  description: 'A price for a vehicle and period; a booking made from it before expires_at keeps its price.',
  fields: (t) => ({
    ...(exposePublicFields(t, QUOTE_FIELDS, enums) as {}),
    dayRates: dayRatesField(t),
    vehicle: t.relation('vehicle'),
  }),
});

const quote = operationField(getQuote);
const create = operationField(createQuote);

builder.queryFields((t) => ({ quote: quote.prisma(t, 'Quote') }));
builder.mutationFields((t) => ({ createQuote: create.prisma(t, 'Quote') }));
