import { validationError } from '../shared/common.errors.ts';
import type { DomainContext } from '../shared/context.ts';
import { priceRental, UnlimitedMilesNotOffered, type Price, type PricedVehicle, type PricingOptions } from './pricing.ts';

/** Price a vehicle for a period, mapping "no unlimited-miles price" to the contract's 422. */
export function priceOrReject(vehicle: PricedVehicle, period: { startAt: Date; endAt: Date }, unlimitedMiles: boolean, options: PricingOptions = {}): Price {
  try {
    return priceRental(vehicle, period, unlimitedMiles, options);
  } catch (err) {
    if (err instanceof UnlimitedMilesNotOffered) throw validationError('unlimited_miles', 'Invalid unlimited_miles: this vehicle does not offer unlimited miles.');
    throw err;
  }
}

/** The time zone that dates rental days for weekend and seasonal rates: the business's. */
export async function pricingTimeZone(ctx: DomainContext): Promise<string> {
  const business = await ctx.db.business.findUnique({ where: { id: ctx.tenant.businessId }, select: { timezone: true } });
  return business?.timezone ?? 'UTC';
}
