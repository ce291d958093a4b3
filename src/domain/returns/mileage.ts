import { validationError } from '../shared/common.errors.ts';
import { MAX_AMOUNT_CENTS } from '../shared/validation.ts';

/** The spec's mileage object (the spec, "Mileage object"), in the domain's camelCase. */
export interface Mileage {
  mileageOut: number;
  mileageIn: number;
  milesUsed: number;
  /** Total for the rental period; null with unlimited miles. */
  includedMiles: number | null;
  overMiles: number;
  extraMileFeeCents: number;
  mileageFeeCents: number;
  unlimitedMiles: boolean;
}

export interface MileageReadings {
  mileageOut: number;
  mileageIn: number;
  /** The booking's snapshot: total included miles for the period, null with unlimited miles. */
  includedMiles: number | null;
  extraMileFeeCents: number;
  unlimitedMiles: boolean;
}

/**
 * miles_used = mileage_in − mileage_out; over_miles = miles_used − included_miles when
 * positive; mileage_fee_cents = over_miles × extra_mile_fee_cents. Unlimited miles (or no
 * limit at all) never cost extra. An odometer that went backwards is a 422 on `mileage_in`.
 */
export function computeMileage(r: MileageReadings): Mileage {
  if (r.mileageIn < r.mileageOut) {
    throw validationError('mileage_in', `Invalid mileage_in: ${r.mileageIn} is below the mileage_out of ${r.mileageOut}.`);
  }
  const milesUsed = r.mileageIn - r.mileageOut;
  const limited = !r.unlimitedMiles && r.includedMiles !== null;
  const overMiles = limited ? Math.max(0, milesUsed - r.includedMiles!) : 0;
  if (overMiles * r.extraMileFeeCents > MAX_AMOUNT_CENTS) {
    throw validationError('mileage_in', `Invalid mileage_in: ${overMiles} miles over at ${r.extraMileFeeCents} per mile would be a fee above the most a charge may be (${MAX_AMOUNT_CENTS}); check the reading.`);
  }
  return {
    mileageOut: r.mileageOut,
    mileageIn: r.mileageIn,
    milesUsed,
    includedMiles: limited ? r.includedMiles : null,
    overMiles,
    extraMileFeeCents: r.extraMileFeeCents,
    mileageFeeCents: overMiles * r.extraMileFeeCents,
    unlimitedMiles: r.unlimitedMiles,
  };
}
