import { z } from 'zod';
import { found } from '../shared/found.ts';
import { defineOperation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';

export const getQuote = defineOperation({
  name: 'quote',
  summary: 'Retrieve a quote',
  description: 'A quote with its price and expiry. Publishable keys may call it.',
  access: { permission: 'quotes:read', publishable: true },
  args: z.object({ id: id('The quote (qt_...).') }),
  errors: [],
  example: { id: 'qt_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  run: (ctx, args, { query }) => found(ctx.db.quote.findUnique({ ...query, where: { id: args.id } }), 'quote', args.id),
});
