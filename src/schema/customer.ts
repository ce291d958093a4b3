import { builder } from '../builder.ts';
import { createCustomer } from '../domain/customers/create-customer.ts';
import { CUSTOMER_FIELDS } from '../domain/customers/customer.fields.ts';
import { getCustomer } from '../domain/customers/get-customer.ts';
import { listCustomerBookings } from '../domain/customers/list-customer-bookings.ts';
import { listCustomers } from '../domain/customers/list-customers.ts';
import { Booking } from './booking.ts';
import { enums } from './enums.ts';
import { exposePublicFields } from './fields.ts';
import { operationField } from './operation-field.ts';
import { ROW_KEY } from './select-mode.ts';

export const Customer = builder.prismaObject('Customer', {
  description: 'A customer of the business (tenant-scoped).',
  select: ROW_KEY,
  fields: (t) => ({ ...(exposePublicFields(t, CUSTOMER_FIELDS, enums) as {}) }),
});

const customer = operationField(getCustomer);
const customers = operationField(listCustomers);
const bookings = operationField(listCustomerBookings);
const create = operationField(createCustomer);

builder.queryFields((t) => ({
  customer: customer.prisma(t, 'Customer'),
  customers: customers.connection(t, Customer),
  customerBookings: bookings.connection(t, Booking),
}));

builder.mutationFields((t) => ({ createCustomer: create.prisma(t, 'Customer') }));
