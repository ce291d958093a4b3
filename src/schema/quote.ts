import { builder } from '../builder.ts';
import { QUOTE_FIELDS } from '../domain/quotes/quote.fields.ts';
import { createQuote, getQuote } from '../domain/quotes/quote.service.ts';
import { enums } from './enums.ts';
import { exposePublicFields } from './fields.ts';

builder.prismaObject('Quote', {
  description: 'A price for a vehicle and period; a booking made from it before expires_at keeps its price.',
  fields: (t) => ({
    ...(exposePublicFields(t, QUOTE_FIELDS, enums) as {}),
    vehicle: t.relation('vehicle'),
  }),
});

const CreateQuoteInput = builder.inputType('CreateQuoteInput', {
  fields: (t) => ({
    vehicleId: t.id({ required: true }),
    startAt: t.field({ type: 'DateTime', required: true }),
    endAt: t.field({ type: 'DateTime', required: true }),
    unlimitedMiles: t.boolean(),
    metadata: t.field({ type: 'JSON' }),
  }),
});

builder.queryFields((t) => ({
  quote: t.prismaField({
    type: 'Quote',
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => getQuote(ctx.domain, String(args.id), query),
  }),
}));

builder.mutationFields((t) => ({
  createQuote: t.prismaField({
    type: 'Quote',
    args: { input: t.arg({ type: CreateQuoteInput, required: true }) },
    resolve: (query, _root, args, ctx) => createQuote(ctx.domain, args.input, query),
  }),
}));
