import type { RestRoute } from '../route.ts';

/** The customer-facing website, its branding, and the public fleet it shows. */
export const websiteRoutes: RestRoute[] = [
  { method: 'GET', path: '/v1/website', field: 'Query.website', args: {}, stage: 'later_scope' },
  { method: 'POST', path: '/v1/website', field: 'Mutation.updateWebsite', args: { input: 'body' }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/branding', field: 'Query.branding', args: {}, stage: 'later_scope' },
  { method: 'POST', path: '/v1/branding', field: 'Mutation.updateBranding', args: { input: 'body' }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/public/vehicles', field: 'Query.publicVehicles', stage: 'later_scope' },
  { method: 'GET', path: '/v1/public/vehicles/{vehicle_id}', field: 'Query.publicVehicle', args: { id: 'path.vehicle_id' }, stage: 'later_scope' },
];
