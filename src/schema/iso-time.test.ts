import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime } from './iso-time.ts';

describe('isoTime', () => {
  it('writes every time as toISOString does', () => {
    // Any time V8 can hold: the years 1000–9999 written here, the others by toISOString.
    fc.assert(fc.property(fc.date({ noInvalidDate: true }), (d) => {
      expect(isoTime(d)).toBe(d.toISOString());
    }), { numRuns: 20_000 });
    fc.assert(fc.property(fc.date({ min: new Date('0999-12-31T23:59:59.990Z'), max: new Date('+010000-01-01T00:00:00.010Z'), noInvalidDate: true }), (d) => {
      expect(isoTime(d)).toBe(d.toISOString());
    }), { numRuns: 20_000 });
    for (const text of ['1000-01-01T00:00:00.000Z', '0999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z', '+010000-01-01T00:00:00.000Z', '2026-02-03T04:05:06.007Z', '2026-12-31T23:59:59.090Z', '1970-01-01T00:00:00.000Z', '-000001-01-01T00:00:00.000Z']) {
      expect(isoTime(new Date(text))).toBe(text);
    }
  });

  it('refuses an invalid time as toISOString does', () => {
    expect(() => isoTime(new Date(Number.NaN))).toThrow(RangeError);
  });
});
