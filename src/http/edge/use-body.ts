import { EdgeErrors } from '../edge.errors.ts';
import { refusing, type EdgePlugin, type ServerContext } from './context.ts';

const GRAPHQL_BODY_TYPES = ['application/json', 'application/graphql-response+json', 'application/graphql+json', 'application/graphql'];

/**
 * Reads the body once, refusing more than `limit` bytes (413) whatever Content-Length says,
 * and bodies /graphql cannot read (415 in the contract's shape, not an empty answer). The
 * request handed on to yoga carries the same bytes.
 */
export function useBody(limit: number): EdgePlugin {
  return {
    onRequest: refusing(({ request, serverContext, setRequest }) => {
      if (serverContext.kind === 'graphiql' || request.method === 'GET' || request.method === 'HEAD') return;
      if (serverContext.kind === 'graphql' && request.method === 'POST') {
        const type = (request.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
        if (!GRAPHQL_BODY_TYPES.includes(type)) throw EdgeErrors.unsupportedMediaType(type || '(none)', 'application/json');
      }
      return readInto(request, serverContext, setRequest, limit);
    }),
  };
}

async function readInto(request: Request, serverContext: ServerContext, setRequest: (r: Request) => void, limit: number): Promise<void> {
  const body = await readBounded(request, limit);
  serverContext.body = body;
  // A REST route is served from `serverContext.body`; only yoga (GraphQL) reads the request's body again.
  if (serverContext.kind !== 'rest') setRequest(new Request(request.url, { method: request.method, headers: request.headers, body: body === '' ? undefined : body }));
}

/** The body as text, refusing more than `limit` bytes (413). */
export async function readBounded(request: Request, limit: number): Promise<string> {
  return (await readBoundedBytes(request, limit)).toString('utf8');
}

/** The body's bytes, refusing more than `limit` (413) whatever Content-Length says. */
export async function readBoundedBytes(request: Request, limit: number): Promise<Buffer> {
  if (Number(request.headers.get('content-length') ?? 0) > limit) throw EdgeErrors.payloadTooLarge(limit);
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw EdgeErrors.payloadTooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
