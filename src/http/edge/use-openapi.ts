import { Response } from '@whatwg-node/server';
import type { EdgePlugin } from './context.ts';

/** GET /v1/openapi.json, without a key: the REST contract, generated from the route table. */
export function useOpenApiDocument(document: () => string): EdgePlugin {
  return {
    onRequest({ url, request, endResponse }) {
      if (url.pathname === '/v1/openapi.json' && request.method === 'GET') {
        endResponse(new Response(document(), { headers: { 'content-type': 'application/json; charset=utf-8' } }));
      }
    },
  };
}
