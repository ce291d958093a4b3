import { randomBytes } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/** Type prefixes of every object id (the contract, "Objects"). */
export const ID_PREFIX = {
  business: 'biz',
  teamMember: 'mem',
  invitation: 'inv',
  vehicle: 'veh',
  quote: 'qt',
  booking: 'bk',
  customer: 'cus',
  payment: 'pay',
  transaction: 'txn',
  checkout: 'cs',
  deposit: 'dep',
  identityVerification: 'idv',
  agreement: 'agr',
  insurance: 'ins',
  charge: 'chg',
  dispute: 'dsp',
  conversation: 'conv',
  message: 'msg',
  domain: 'dom',
  website: 'web',
  branding: 'brd',
  file: 'file',
  evidence: 'evd',
  tripPhoto: 'tph',
  vehicleReturn: 'ret',
  vehicleAccess: 'vac',
  webhookEndpoint: 'we',
  webhookDelivery: 'wd',
  webhookMessage: 'whm',
  event: 'evt',
  request: 'req',
  apiKey: 'key',
  audit: 'aud',
  oauthApp: 'app',
  connectedApp: 'capp',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

// ulid's default source asks the OS for randomness once per character; drawing from a
// pooled buffer keeps ids cryptographically random at a fraction of the cost (an id is
// made on every request).
const pool = { bytes: randomBytes(4096), offset: 4096 };
function pooledRandom(): number {
  if (pool.offset >= pool.bytes.length) {
    pool.bytes = randomBytes(4096);
    pool.offset = 0;
  }
  return pool.bytes[pool.offset++] / 256;
}

const ulid = monotonicFactory(pooledRandom);

/**
 * A new id: prefix + lower-case ULID. ULIDs sort by creation time, so "newest first" is
 * "id descending" and keyset pagination needs no second column.
 */
export function newId(kind: IdKind): string {
  return `${ID_PREFIX[kind]}_${ulid().toLowerCase()}`;
}
