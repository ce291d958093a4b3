import { validationError } from '../shared/common.errors.ts';
import { priceRental, UnlimitedMilesNotOffered, type Price, type PricedVehicle } from './pricing.ts';

/** Price a vehicle for a period, mapping "no unlimited-miles price" to the contract's 422. */
export function priceOrReject(vehicle: PricedVehicle, period: { startAt: Date; endAt: Date }, unlimitedMiles: boolean): Price {
  try {
    return priceRental(vehicle, period, unlimitedMiles);
  } catch (err) {
    if (err instanceof UnlimitedMilesNotOffered) throw validationError('unlimited_miles', 'Invalid unlimited_miles: this vehicle does not offer unlimited miles.');
    throw err;
  }
}
