import { z } from 'zod';
import { ALL_PERMISSIONS, isPermission } from '../access/permissions.ts';
import { AppErrors } from './app.errors.ts';

export const appName = z.string().trim().min(1).max(100).meta({ description: 'The name businesses see on the consent page.' });

export const redirectUris = z
  .array(z.string().min(1).max(2048))
  .min(1)
  .max(10)
  .meta({ description: 'Where /oauth/authorize may send the business back, each matched exactly: https, or http://localhost / http://127.0.0.1 for a test-mode app.' });

export const appScopes = z
  .array(z.string().max(100))
  .min(1)
  .max(ALL_PERMISSIONS.length)
  .refine((scopes) => scopes.every(isPermission), `each must be a permission: ${ALL_PERMISSIONS.join(', ')}`)
  .meta({ description: 'The permissions the app may ask for (bookings:read ...); a business grants these or fewer.' });

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * A redirect URI the authorization server will send a code to: absolute, no fragment, https;
 * a test-mode app may also use http on a loopback host (a developer's machine, a CLI).
 */
export function assertRedirectUris(uris: readonly string[], livemode: boolean): string[] {
  for (const uri of uris) {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      throw AppErrors.redirectUriNotAllowed(`Invalid redirect_uris: ${JSON.stringify(uri)} is not an absolute URL.`);
    }
    if (url.hash || uri.includes('#')) throw AppErrors.redirectUriNotAllowed(`Invalid redirect_uris: ${uri} has a fragment; a redirect URI may not.`);
    if (url.username || url.password) throw AppErrors.redirectUriNotAllowed(`Invalid redirect_uris: ${uri} carries credentials.`);
    if (url.protocol === 'https:') continue;
    if (url.protocol === 'http:' && !livemode && LOOPBACK.has(url.hostname)) continue;
    throw AppErrors.redirectUriNotAllowed(
      livemode
        ? `Invalid redirect_uris: ${uri} is not https; live apps redirect to https URLs only.`
        : `Invalid redirect_uris: ${uri} is neither https nor http://localhost or http://127.0.0.1.`,
    );
  }
  return [...new Set(uris)];
}
