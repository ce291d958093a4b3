import { builder } from '../builder.ts';
import { CUSTOMER_FIELDS } from '../domain/customers/customer.fields.ts';
import { getCustomer } from '../domain/customers/customer.service.ts';
import { enums } from './enums.ts';
import { exposePublicFields } from './fields.ts';

builder.prismaObject('Customer', {
  description: 'A customer of the business (tenant-scoped).',
  fields: (t) => ({ ...(exposePublicFields(t, CUSTOMER_FIELDS, enums) as {}) }),
});

export const CustomerInput = builder.inputType('CustomerInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    email: t.string(),
    phone: t.string(),
    metadata: t.field({ type: 'JSON' }),
  }),
});

builder.queryFields((t) => ({
  customer: t.prismaField({
    type: 'Customer',
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => getCustomer(ctx.domain, String(args.id), query),
  }),
}));
