import type { PrismaClient } from './generated/prisma/client.ts';
import type { DemoSeedSetting } from './config.ts';
import { insertSandboxBusiness, type SandboxBusiness } from './platform/businesses.ts';
import { newId } from './domain/shared/ids.ts';
import { retryConflicts } from './db/transaction-retry.ts';

export const DEMO_BUSINESS_NAME = 'Demo Rentals';

const DEMO_FLEET = [
  { name: 'Toyota Corolla 2024', make: 'Toyota', model: 'Corolla', year: 2024, dailyRateCents: 4900, depositCents: 25000, includedMiles: 200, extraMileFeeCents: 35, unlimitedMilesDailyCents: 1500, features: ['bluetooth', 'backup_camera'] },
  { name: 'Tesla Model 3 2025', make: 'Tesla', model: 'Model 3', year: 2025, dailyRateCents: 8900, depositCents: 50000, includedMiles: 250, extraMileFeeCents: 45, unlimitedMilesDailyCents: 2500, features: ['autopilot', 'supercharging'] },
  { name: 'Ford Transit Van 2023', make: 'Ford', model: 'Transit', year: 2023, dailyRateCents: 11900, depositCents: 75000, includedMiles: 150, extraMileFeeCents: 55, unlimitedMilesDailyCents: null, features: ['cargo', '3_seats'] },
];

/**
 * Whether start-up seeds the demo into an empty database of this kind: the embedded one by
 * default; a PostgreSQL database (a DATABASE_URL, likely shared or production) only when asked.
 */
export function demoSeedWanted(setting: DemoSeedSetting, kind: 'pglite' | 'postgres'): boolean {
  return setting === 'on' || (setting === 'embedded' && kind === 'pglite');
}

/** Start-up's first queries (WebAssembly compiled lazily) may outlast Prisma's 5 s default. */
const SEED_TRANSACTION = { maxWait: 30_000, timeout: 30_000 };

/**
 * On an empty database, create the demo business with test keys and a sandbox fleet: nothing
 * in live mode. Returns its keys, or null when the database already holds a business.
 * Servers starting together on one PostgreSQL database seed it once (an advisory lock).
 */
export async function seedDemoBusiness(prisma: PrismaClient): Promise<SandboxBusiness | null> {
  return retryConflicts(() =>
    prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtextextended('rental:demo-seed', 0))::text`;
      if ((await tx.business.count()) > 0) return null;
      const created = await insertSandboxBusiness(tx, { name: DEMO_BUSINESS_NAME });
      await tx.vehicle.createMany({
        data: DEMO_FLEET.map((vehicle) => ({ id: newId('vehicle'), businessId: created.business_id, livemode: false, currency: 'usd', location: { city: 'Austin', state: 'TX' }, ...vehicle })),
      });
      return created;
    }, SEED_TRANSACTION),
  );
}
