import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a signing link sent to the customer works. */
export const SIGNING_LINK_DAYS = 7;

/** What a signing link is bound to: it signs this version of this agreement of this business and environment, nothing else. */
export interface SigningClaims {
  businessId: string;
  livemode: boolean;
  agreementId: string;
  version: number;
}

/** A signing link inside a text (a message's body), wherever the service is reached. */
const SIGNING_LINK_IN_TEXT = /\S*\/v1\/agreements\/agr_[0-9a-z]+\/sign\?\S*/g;

/** The text with every signing link in it replaced: links are credentials and never appear in events. */
export const withoutSigningLinks = (text: string) => text.replace(SIGNING_LINK_IN_TEXT, '[withheld]');

/** The path of an agreement's signing link, before its query. */
export const signingLinkPath = (agreementId: string) => `/v1/agreements/${agreementId}/sign`;

export type SigningLinkVerdict = 'ok' | 'expired' | 'invalid';

/**
 * Signed links for the customer's signature (no API key: the link is the authorization, like
 * the file links). The signature is an HMAC, under this installation's own secret, of the
 * business, the environment, the agreement, the document version and the expiry; the query
 * carries the version and the expiry, so a link to a replaced version is recognised as such.
 */
export function signingLinkSigner(secret: string) {
  const signatureOf = (c: SigningClaims, expires: number) =>
    createHmac('sha256', secret)
      .update(`agreement-sign\n${c.businessId}\n${c.livemode ? 'live' : 'test'}\n${c.agreementId}\n${c.version}\n${expires}`)
      .digest('base64url');
  return {
    /** `?version=<n>&expires=<unix seconds>&signature=...` */
    query(claims: SigningClaims, expiresAt: Date): string {
      const expires = Math.floor(expiresAt.getTime() / 1000);
      return `version=${claims.version}&expires=${expires}&signature=${signatureOf(claims, expires)}`;
    },
    /** The version a link names (checked by `verify`), or null when it names none. */
    versionOf(params: URLSearchParams): number | null {
      const raw = params.get('version') ?? '';
      return /^[1-9][0-9]{0,8}$/.test(raw) ? Number(raw) : null;
    },
    /** Whether the link was made for exactly these claims, and is still valid at `now` (the agreement's business's clock). */
    verify(claims: SigningClaims, params: URLSearchParams, now: Date): SigningLinkVerdict {
      const rawExpires = params.get('expires') ?? '';
      if (!/^[0-9]{1,12}$/.test(rawExpires) || this.versionOf(params) !== claims.version) return 'invalid';
      const expires = Number(rawExpires);
      const given = Buffer.from(params.get('signature') ?? '');
      const expected = Buffer.from(signatureOf(claims, expires));
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
      return expires * 1000 < now.getTime() ? 'expired' : 'ok';
    },
  };
}

export type SigningLinkSigner = ReturnType<typeof signingLinkSigner>;

/** What operations need: an absolute signing link, valid until `expiresAt`. */
export interface SigningLinks {
  link(claims: SigningClaims, expiresAt: Date): string;
}

/** `baseUrl` is asked only when a link is made. */
export function signingLinks(signer: SigningLinkSigner, baseUrl: () => string): SigningLinks {
  return { link: (claims, expiresAt) => `${baseUrl()}${signingLinkPath(claims.agreementId)}?${signer.query(claims, expiresAt)}` };
}
