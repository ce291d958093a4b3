import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import { newId } from '../domain/shared/ids.ts';
import { retryConflicts } from '../db/transaction-retry.ts';
import { createApiKey } from './api-keys.ts';

/** A business with sandbox keys only (the demo's): nothing it holds reaches live money. */
export interface SandboxBusiness {
  business_id: string;
  test_secret_key: string;
  test_public_key: string;
}

export interface CreatedBusiness extends SandboxBusiness {
  live_secret_key: string;
  live_public_key: string;
}

type BusinessInput = { name: string; currency?: string };

/**
 * Create a business with its first four keys. There is no API for this (the contract):
 * the admin command line calls it.
 */
export async function createBusiness(prisma: PrismaClient, input: BusinessInput): Promise<CreatedBusiness> {
  return retryConflicts(() =>
    prisma.$transaction(async (tx) => {
      const { business, key } = await insertBusiness(tx, input);
      return { ...business, live_secret_key: await key(true, 'secret'), live_public_key: await key(true, 'publishable') };
    }),
  );
}

/**
 * Create a business with test keys only, inside the caller's transaction (the demo seed).
 * Live keys can be added later with `npm run admin -- key create --mode live`.
 */
export async function insertSandboxBusiness(tx: Prisma.TransactionClient, input: BusinessInput): Promise<SandboxBusiness> {
  return (await insertBusiness(tx, input)).business;
}

async function insertBusiness(tx: Prisma.TransactionClient, input: BusinessInput) {
  const business = await tx.business.create({ data: { id: newId('business'), name: input.name, currency: input.currency ?? 'usd' } });
  const key = (livemode: boolean, kind: 'secret' | 'publishable') =>
    createApiKey(tx, { businessId: business.id, livemode, kind, name: 'default' }).then((k) => k.key);
  return {
    key,
    business: { business_id: business.id, test_secret_key: await key(false, 'secret'), test_public_key: await key(false, 'publishable') },
  };
}
