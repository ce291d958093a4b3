import { describe, expect, it } from 'vitest';
import { DomainError } from '../shared/errors.ts';
import { computeMileage } from './mileage.ts';

const readings = { mileageOut: 1000, mileageIn: 1900, includedMiles: 400, extraMileFeeCents: 35, unlimitedMiles: false };

describe('computeMileage (the spec, "Mileage object")', () => {
  it('charges the miles over the included total at the extra-mile fee', () => {
    expect(computeMileage(readings)).toEqual({
      mileageOut: 1000, mileageIn: 1900, milesUsed: 900, includedMiles: 400, overMiles: 500, extraMileFeeCents: 35, mileageFeeCents: 17500, unlimitedMiles: false,
    });
  });

  it('charges nothing within the included miles, exactly at the limit included', () => {
    expect(computeMileage({ ...readings, mileageIn: 1400 })).toMatchObject({ milesUsed: 400, overMiles: 0, mileageFeeCents: 0 });
    expect(computeMileage({ ...readings, mileageIn: 1000 })).toMatchObject({ milesUsed: 0, overMiles: 0, mileageFeeCents: 0 });
  });

  it('never charges with unlimited miles', () => {
    expect(computeMileage({ ...readings, includedMiles: null, unlimitedMiles: true, mileageIn: 9000 })).toMatchObject({
      milesUsed: 8000, includedMiles: null, overMiles: 0, mileageFeeCents: 0, unlimitedMiles: true,
    });
  });

  it('refuses a reading whose fee would pass the most a charge may be (100,000,000), as a 422 on mileage_in', () => {
    expect(computeMileage({ ...readings, extraMileFeeCents: 100_000, mileageIn: 1400 + 1000 }).mileageFeeCents).toBe(100_000_000);
    expect(() => computeMileage({ ...readings, extraMileFeeCents: 100_000, mileageIn: 1400 + 1001 })).toThrow(expect.objectContaining({ type: 'validation_error', param: 'mileage_in' }));
  });

  it('refuses an odometer that went backwards as a 422 on mileage_in', () => {
    expect(() => computeMileage({ ...readings, mileageIn: 999 })).toThrow(DomainError);
    try {
      computeMileage({ ...readings, mileageIn: 999 });
    } catch (e) {
      expect(e).toMatchObject({ type: 'validation_error', param: 'mileage_in' });
    }
  });
});
