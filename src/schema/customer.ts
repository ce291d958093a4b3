import { builder } from '../builder.ts';
import { CUSTOMER_FIELDS } from '../domain/customers/customer.fields.ts';
import { getCustomer } from '../domain/customers/get-customer.ts';
import { enums } from './enums.ts';
import { exposePublicFields } from './fields.ts';
import { operationField } from './operation-field.ts';

builder.prismaObject('Customer', {
  description: 'A customer of the business (tenant-scoped).',
  fields: (t) => ({ ...(exposePublicFields(t, CUSTOMER_FIELDS, enums) as {}) }),
});

const customer = operationField(getCustomer);

builder.queryFields((t) => ({ customer: customer.prisma(t, 'Customer') }));
