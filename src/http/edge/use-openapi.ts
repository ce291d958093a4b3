import { Response } from '@whatwg-node/server';
import type { EdgePlugin } from './context.ts';

export const answersOpenApi = (method: string, pathname: string) => method === 'GET' && pathname === '/v1/openapi.json';

/** GET /v1/openapi.json, without a key: the REST contract, generated from the route table. */
export function useOpenApiDocument(document: () => string): EdgePlugin {
  return {
    onRequest({ url, request, endResponse }) {
      if (answersOpenApi(request.method, url.pathname)) {
        endResponse(new Response(document(), { headers: { 'content-type': 'application/json; charset=utf-8' } }));
      }
    },
  };
}
