import type { Branding, Vehicle, Website } from '../../generated/prisma/client.ts';
import { present, type PublicFields } from '../shared/presenter.ts';

export const WEBSITE_FIELDS: PublicFields = {
  id: { kind: 'id' },
  livemode: { kind: 'boolean' },
  published: { kind: 'boolean', description: 'Whether the public fleet (GET /v1/public/vehicles) shows anything.' },
  title: { kind: 'string', nullable: true },
  description: { kind: 'string', nullable: true },
  contactEmail: { kind: 'string', nullable: true },
  contactPhone: { kind: 'string', nullable: true },
  publishedVehicleIds: { kind: 'strings', description: 'The vehicles the public fleet shows (while active).' },
  allowedOrigins: {
    kind: 'strings',
    description:
      "Origins (scheme://host[:port]) whose browsers may use this environment's publishable keys (the embedded booking components): CORS answers them, besides the verified custom domains (and in the sandbox http://localhost and http://127.0.0.1 on any port).",
  },
  createdAt: { kind: 'datetime' },
  updatedAt: { kind: 'datetime' },
};

export const BRANDING_FIELDS: PublicFields = {
  id: { kind: 'id' },
  livemode: { kind: 'boolean' },
  primaryColor: { kind: 'string', nullable: true, description: 'Hex, #rrggbb.' },
  secondaryColor: { kind: 'string', nullable: true, description: 'Hex, #rrggbb.' },
  accentColor: { kind: 'string', nullable: true, description: 'Hex, #rrggbb.' },
  logoFileId: { kind: 'id', nullable: true, description: 'An uploaded image (file_...).' },
  font: { kind: 'string', nullable: true, description: 'A font family name.' },
  createdAt: { kind: 'datetime' },
  updatedAt: { kind: 'datetime' },
};

export const presentWebsite = (row: Website) => present('website', WEBSITE_FIELDS, row);
export const presentBranding = (row: Branding) => present('branding', BRANDING_FIELDS, row);

/** The lines of a vehicle's location a customer may see: where, not how to get in. */
const PUBLIC_LOCATION_KEYS = ['name', 'city', 'state', 'region', 'postal_code', 'country'] as const;

/**
 * A vehicle as the public fleet shows it: what a customer needs to choose and book it. No
 * metadata, no status, no access method, and of its location only the public lines
 * (name, city, state, region, postal_code, country).
 */
export function publicLocation(location: Vehicle['location']): Record<string, unknown> | null {
  if (!location || typeof location !== 'object' || Array.isArray(location)) return null;
  const source = location as Record<string, unknown>;
  const out = Object.fromEntries(PUBLIC_LOCATION_KEYS.filter((k) => typeof source[k] === 'string').map((k) => [k, source[k]]));
  return Object.keys(out).length > 0 ? out : null;
}
