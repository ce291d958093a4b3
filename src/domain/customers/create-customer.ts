import { z } from 'zod';
import { tenantLocks } from '../../db/tenant-db.ts';
import { originOf, recordEvent } from '../events/event.service.ts';
import { present } from '../shared/presenter.ts';
import { defineOperation, wantsRelations } from '../shared/operation.ts';
import type { Db, DomainContext } from '../shared/context.ts';
import { CUSTOMER_FIELDS } from './customer.fields.ts';
import { customerInput, insertCustomer, normalizeEmail } from './customer-input.ts';
import { CustomerErrors } from './customer.errors.ts';

const createCustomerInput = z.object(customerInput.shape).meta({ id: 'CreateCustomerInput', description: 'A new customer of the business.' });

/**
 * Serialize creations of one email (a transaction-scoped advisory lock on the business,
 * environment and email), so two concurrent requests cannot both pass the duplicate check.
 */
async function lockEmail(tx: Db, ctx: DomainContext, email: string) {
  await tenantLocks(tx).$lockKey(`customer-email:${email}`);
}

export const createCustomer = defineOperation({
  name: 'createCustomer',
  summary: 'Create a customer',
  description:
    "Adds a customer (name, email, phone, metadata) to the business in the key's environment and emits customer.created. Emails are unique per business and environment, compared without regard to case: a second customer with the same email is refused with 409 customer_exists naming the existing one. (Customers given inline with a booking are not checked.)",
  access: { permission: 'customers:write' },
  args: z.object({ input: createCustomerInput }),
  errors: [CustomerErrors.exists],
  example: { input: { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+1 512 555 0100', metadata: { crm_id: '8841' } } },
  async run(ctx, { input }, { query }) {
    const origin = originOf(ctx);
    const email = normalizeEmail(input.email);
    const created = await ctx.db.$transaction(async (tx) => {
      if (email) {
        await lockEmail(tx, ctx, email);
        const existing = await tx.customer.findFirst({ where: { emailNormalized: email }, select: { id: true }, orderBy: { id: 'asc' } });
        if (existing) throw CustomerErrors.exists(existing.id);
      }
      const customer = await insertCustomer(tx, ctx, input);
      await recordEvent(tx, origin, { type: 'customer.created', object: present('customer', CUSTOMER_FIELDS, customer) });
      return customer;
    });
    return query && wantsRelations(query) ? ctx.db.customer.findUniqueOrThrow({ ...query, where: { id: created.id } }) : created;
  },
});
