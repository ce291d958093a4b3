import type { RestRoute } from '../route.ts';

/** Custom domains of the business's website, verified through DNS. */
export const domainRoutes: RestRoute[] = [
  { method: 'GET', path: '/v1/domains', field: 'Query.domains', stage: 'later_scope' },
  { method: 'POST', path: '/v1/domains', field: 'Mutation.addDomain', args: { input: 'body' }, status: 201, stage: 'later_scope' },
  { method: 'GET', path: '/v1/domains/{domain_id}/verification', field: 'Query.domainVerification', args: { domainId: 'path.domain_id' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/domains/{domain_id}/verify', field: 'Mutation.verifyDomain', args: { domainId: 'path.domain_id' }, answerExample: { state: 'verified', verified_at: '2026-11-27T20:17:56.638Z', next_states: [] }, stage: 'later_scope' },
];
