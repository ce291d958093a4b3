/**
 * Rental pricing (the contract, "Quote"). Pure: the same inputs give the same cents, and
 * a booking snapshots its result.
 */
export interface PricedVehicle {
  currency: string;
  dailyRateCents: number;
  depositCents: number;
  includedMiles: number;
  extraMileFeeCents: number;
  unlimitedMilesDailyCents: number | null;
}

export interface Price {
  days: number;
  currency: string;
  dailyRateCents: number;
  rentalCents: number;
  unlimitedMilesFeeCents: number;
  deliveryFeeCents: number;
  depositCents: number;
  /** Total for the period; null with unlimited miles. */
  includedMiles: number | null;
  extraMileFeeCents: number;
  totalCents: number;
}

const DAY_MS = 86_400_000;

/** Whole days, rounded up, at least one. */
export function rentalDays(startAt: Date, endAt: Date): number {
  return Math.max(1, Math.ceil((endAt.getTime() - startAt.getTime()) / DAY_MS));
}

export class UnlimitedMilesNotOffered extends Error {}

export function priceRental(vehicle: PricedVehicle, period: { startAt: Date; endAt: Date }, unlimitedMiles: boolean): Price {
  const days = rentalDays(period.startAt, period.endAt);
  if (unlimitedMiles && vehicle.unlimitedMilesDailyCents === null) throw new UnlimitedMilesNotOffered();
  const rentalCents = vehicle.dailyRateCents * days;
  const unlimitedMilesFeeCents = unlimitedMiles ? (vehicle.unlimitedMilesDailyCents ?? 0) * days : 0;
  const deliveryFeeCents = 0;
  return {
    days,
    currency: vehicle.currency,
    dailyRateCents: vehicle.dailyRateCents,
    rentalCents,
    unlimitedMilesFeeCents,
    deliveryFeeCents,
    depositCents: vehicle.depositCents,
    includedMiles: unlimitedMiles ? null : vehicle.includedMiles * days,
    extraMileFeeCents: vehicle.extraMileFeeCents,
    totalCents: rentalCents + unlimitedMilesFeeCents + deliveryFeeCents,
  };
}
