import type { PrismaClient } from '../generated/prisma/client.ts';
import { newId } from '../domain/shared/ids.ts';
import { createApiKey } from './api-keys.ts';

export interface CreatedBusiness {
  business_id: string;
  test_secret_key: string;
  test_public_key: string;
  live_secret_key: string;
  live_public_key: string;
}

/**
 * Create a business with its first four keys. There is no API for this (the contract):
 * the admin command line and the demo seed call it.
 */
export async function createBusiness(prisma: PrismaClient, input: { name: string; currency?: string }): Promise<CreatedBusiness> {
  return prisma.$transaction(async (tx) => {
    const business = await tx.business.create({ data: { id: newId('business'), name: input.name, currency: input.currency ?? 'usd' } });
    const key = (livemode: boolean, kind: 'secret' | 'publishable') =>
      createApiKey(tx, { businessId: business.id, livemode, kind, name: 'default' }).then((k) => k.key);
    return {
      business_id: business.id,
      test_secret_key: await key(false, 'secret'),
      test_public_key: await key(false, 'publishable'),
      live_secret_key: await key(true, 'secret'),
      live_public_key: await key(true, 'publishable'),
    };
  });
}
