import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema.d.ts';

export type { components, operations, paths, webhooks } from './schema.d.ts';

/**
 * A typed client of the REST API (openapi-fetch over the generated client/schema.d.ts): paths,
 * parameters, bodies and answers are checked by TypeScript.
 *
 *   const api = createRentalClient('http://127.0.0.1:3000', process.env.RENTAL_KEY!);
 *   const { data, error } = await api.GET('/v1/bookings/{booking_id}', { params: { path: { booking_id: id } } });
 */
export function createRentalClient(baseUrl: string, key: string, options: { fetch?: typeof fetch; headers?: Record<string, string> } = {}): Client<paths> {
  return createClient<paths>({ baseUrl, fetch: options.fetch, headers: { authorization: `Bearer ${key}`, ...options.headers } });
}
