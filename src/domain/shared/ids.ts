import { monotonicFactory } from 'ulid';

/** Type prefixes of every object id (CONTRACT.md "Objects"). */
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
  deposit: 'dep',
  identityVerification: 'idv',
  agreement: 'agr',
  insurance: 'ins',
  charge: 'chg',
  dispute: 'dsp',
  conversation: 'conv',
  message: 'msg',
  domain: 'dom',
  file: 'file',
  webhookEndpoint: 'we',
  webhookDelivery: 'wd',
  event: 'evt',
  request: 'req',
  apiKey: 'key',
  audit: 'aud',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const ulid = monotonicFactory();

/**
 * A new id: prefix + lower-case ULID. ULIDs sort by creation time, so "newest first" is
 * "id descending" and keyset pagination needs no second column.
 */
export function newId(kind: IdKind): string {
  return `${ID_PREFIX[kind]}_${ulid().toLowerCase()}`;
}
