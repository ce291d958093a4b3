import { z } from 'zod';
import type { Business } from '../../generated/prisma/client.ts';

/** A postal address: every line optional, the country as ISO 3166-1 alpha-2. */
export interface Address {
  line1?: string | null;
  line2?: string | null;
  city?: string | null;
  state?: string | null;
  postalCode?: string | null;
  country?: string | null;
}

const line = (description: string) => z.string().trim().min(1).max(200).nullish().meta({ description });

/** An address update: only the lines sent change; null clears one. */
export const addressInput = z
  .object({
    line1: line('Street and number.'),
    line2: line('Apartment, suite, unit.'),
    city: line('City or town.'),
    state: line('State, county or province.'),
    postalCode: z.string().trim().min(1).max(20).nullish().meta({ description: 'Postal or ZIP code.' }),
    country: z.string().regex(/^[A-Z]{2}$/, 'expected an ISO 3166-1 alpha-2 code in upper case (US)').nullish().meta({ description: 'ISO 3166-1 alpha-2 code, upper case (US).' }),
  })
  .meta({ id: 'AddressInput', description: 'A postal address; on an update only the lines sent change and null clears one.' });

const ADDRESS_LINES = ['line1', 'line2', 'city', 'state', 'postalCode', 'country'] as const;

/** The stored address after an update (null when every line is empty). */
export function mergeAddress(current: unknown, update: Address | null | undefined): Address | null {
  if (update === undefined) return (current as Address | null) ?? null;
  if (update === null) return null;
  const next: Address = { ...((current as Address | null) ?? {}) };
  for (const key of ADDRESS_LINES) {
    if (update[key] === null) delete next[key];
    else if (update[key] !== undefined) next[key] = update[key];
  }
  return ADDRESS_LINES.some((key) => next[key] != null) ? next : null;
}

/** A time zone of the IANA database that this runtime knows (`Europe/Berlin`, `UTC`). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return !/^[+-]?\d/.test(name); // offsets such as "+01:00" are not zones: they ignore daylight saving
  } catch {
    return false;
  }
}

/** The business in its API representation (REST, events): the caller's environment is its `livemode`. */
export function presentBusiness(row: Business, livemode: boolean) {
  const address = row.address as Address | null;
  return {
    object: 'business',
    id: row.id,
    livemode,
    name: row.name,
    currency: row.currency,
    timezone: row.timezone,
    support_email: row.supportEmail,
    support_phone: row.supportPhone,
    address: address && {
      line1: address.line1 ?? null,
      line2: address.line2 ?? null,
      city: address.city ?? null,
      state: address.state ?? null,
      postal_code: address.postalCode ?? null,
      country: address.country ?? null,
    },
    created_at: row.createdAt.toISOString(),
  };
}
