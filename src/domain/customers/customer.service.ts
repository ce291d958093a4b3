import { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.ts';
import { authorize } from '../access/permissions.ts';
import { scope, type Db, type DomainContext } from '../shared/context.ts';
import { resourceMissing } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { newMetadata } from '../shared/validation.ts';

type Query = { include?: Prisma.CustomerInclude; select?: Prisma.CustomerSelect };

export const customerInput = z.object({
  name: z.string().trim().min(1).max(200),
  email: z.string().trim().email().max(320).nullish(),
  phone: z.string().trim().regex(/^\+?[0-9 ()-]{6,20}$/, 'expected a phone number').nullish(),
  metadata: newMetadata,
});

export type CustomerInput = z.output<typeof customerInput>;

export async function getCustomer(ctx: DomainContext, id: string, query: Query = {}) {
  authorize(ctx.principal, 'customers:read');
  const customer = await ctx.prisma.customer.findFirst({ ...query, where: { id, ...scope(ctx) } });
  if (!customer) throw resourceMissing('customer', id);
  return customer;
}

/** Create a customer inside the caller's transaction (a booking may bring its customer inline). */
export async function insertCustomer(db: Db, ctx: DomainContext, input: CustomerInput) {
  return db.customer.create({
    data: { id: newId('customer'), ...scope(ctx), name: input.name, email: input.email ?? null, phone: input.phone ?? null, metadata: input.metadata },
  });
}
