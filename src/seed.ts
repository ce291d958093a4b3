import type { PrismaClient } from './generated/prisma/client.ts';
import { createBusiness, type CreatedBusiness } from './platform/businesses.ts';
import { newId } from './domain/shared/ids.ts';

const DEMO_FLEET = [
  { name: 'Toyota Corolla 2024', make: 'Toyota', model: 'Corolla', year: 2024, dailyRateCents: 4900, depositCents: 25000, includedMiles: 200, extraMileFeeCents: 35, unlimitedMilesDailyCents: 1500, features: ['bluetooth', 'backup_camera'] },
  { name: 'Tesla Model 3 2025', make: 'Tesla', model: 'Model 3', year: 2025, dailyRateCents: 8900, depositCents: 50000, includedMiles: 250, extraMileFeeCents: 45, unlimitedMilesDailyCents: 2500, features: ['autopilot', 'supercharging'] },
  { name: 'Ford Transit Van 2023', make: 'Ford', model: 'Transit', year: 2023, dailyRateCents: 11900, depositCents: 75000, includedMiles: 150, extraMileFeeCents: 55, unlimitedMilesDailyCents: null, features: ['cargo', '3_seats'] },
];

/**
 * On an empty database, create the demo business, its keys and a small fleet in both
 * environments. Returns the keys, or null when the database already holds a business.
 */
export async function seedDemoBusiness(prisma: PrismaClient): Promise<CreatedBusiness | null> {
  if ((await prisma.business.count()) > 0) return null;
  const created = await createBusiness(prisma, { name: 'Demo Rentals' });
  for (const livemode of [false, true]) {
    for (const vehicle of DEMO_FLEET) {
      await prisma.vehicle.create({
        data: { id: newId('vehicle'), businessId: created.business_id, livemode, currency: 'usd', location: { city: 'Austin', state: 'TX' }, ...vehicle },
      });
    }
  }
  return created;
}
