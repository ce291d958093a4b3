import type { EdgeStep } from '../runner.ts';

export const OPENAPI_PATH = '/v1/openapi.json';

/** GET /v1/openapi.json, without a key: the REST contract, generated from the route table. */
export function openApiStep(document: () => string): EdgeStep {
  return {
    name: 'openapi',
    run(ctx) {
      if (ctx.request.method !== 'GET' || ctx.request.pathname !== OPENAPI_PATH) return;
      ctx.template = OPENAPI_PATH;
      const text = document();
      ctx.answer = { status: 200, headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)) }, body: text };
    },
  };
}
