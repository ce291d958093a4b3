import { z } from 'zod';
import type { Db, DomainContext } from '../shared/context.ts';
import { newId } from '../shared/ids.ts';
import { newMetadata } from '../shared/validation.ts';

export const customerInput = z
  .object({
    name: z.string().trim().min(1).max(200).meta({ description: 'Full name.' }),
    email: z.string().trim().email().max(320).nullish().meta({ description: 'Email address; receipts and agreement links go there.' }),
    phone: z.string().trim().regex(/^\+?[0-9 ()-]{6,20}$/, 'expected a phone number').nullish().meta({ description: 'E.164 or local format, e.g. +1 512 555 0100.' }),
    metadata: newMetadata,
  })
  .meta({ id: 'CustomerInput', description: 'A new customer, made with the booking.' });

export type CustomerValues = z.output<typeof customerInput>;

/** Create a customer inside the caller's transaction (a booking may bring its customer inline). */
export function insertCustomer(db: Db, ctx: DomainContext, input: CustomerValues) {
  return db.customer.create({
    data: { id: newId('customer'), ...ctx.tenant, name: input.name, email: input.email ?? null, emailNormalized: normalizeEmail(input.email), phone: input.phone ?? null, metadata: input.metadata },
  });
}

/** How emails compare: trimmed (by the input) and lower-cased. */
export const normalizeEmail = (email: string | null | undefined): string | null => (email ? email.toLowerCase() : null);
