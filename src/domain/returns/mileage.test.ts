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

  it('refuses an odometer that went backwards as a 422 on mileage_in', () => {
    expect(() => computeMileage({ ...readings, mileageIn: 999 })).toThrow(DomainError);
    try {
      computeMileage({ ...readings, mileageIn: 999 });
    } catch (e) {
      expect(e).toMatchObject({ type: 'validation_error', param: 'mileage_in' });
    }
  });
});
