import { createHash, randomBytes } from 'node:crypto';

/** A new client's credentials: the id is public; the secret's SHA-256 alone is stored. */
export function newClientCredentials(livemode: boolean): { clientId: string; clientSecret: string } {
  const env = livemode ? 'live' : 'test';
  return {
    clientId: `client_${env}_${randomBytes(18).toString('base64url')}`,
    clientSecret: `svc_${env}_cs_${randomBytes(32).toString('base64url')}`,
  };
}

export function hashClientSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
