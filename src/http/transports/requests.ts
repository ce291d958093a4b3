import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { EdgeRequest } from '../edge/runner.ts';
import { CSRF_HEADER } from '../../ops/sessions.ts';
import { FetchBody, NoBody, NodeBody, type BoundedBody } from './body.ts';

/** An EdgeRequest and what its transport needs to know of its body once it is answered. */
export type TransportRequest = EdgeRequest & {
  /** The body was refused before its end and the rest left unread: the connection closes after the answer. */
  bodyAbandoned(): boolean;
};

/** `bytes` and `bodyAbandoned` over a body made only if it is read (most requests have none). */
function lazyBody(make: () => BoundedBody): Pick<TransportRequest, 'bytes' | 'bodyAbandoned'> {
  let body: BoundedBody | undefined;
  return { bytes: (limit) => (body ??= make()).bytes(limit), bodyAbandoned: () => body?.abandoned === true };
}

/**
 * A request target the WHATWG URL parser keeps exactly as written (no character it would
 * percent-encode, no backslash), so its path and query are what a parsed URL would give.
 */
const PLAIN_TARGET = /^\/[A-Za-z0-9\-._~%!$&'()*+,;=:@/]*(?:\?[A-Za-z0-9\-._~%!$&()*+,;=:@/?[\]]*)?$/;
/** A `.` or `..` segment, plain or percent-encoded: the parser resolves those. */
const DOT_SEGMENT = /\/(?:\.|%2e)(?:\.|%2e)?(?:[/?]|$)/i;
/** A host name the parser keeps as written but for case (its last label not a number), or a dotted IPv4 address; an optional port. */
const PLAIN_HOST = /^(?:(?:[A-Za-z0-9-]+\.)*[A-Za-z-][A-Za-z0-9-]*\.?|(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d))(?::(\d{1,5}))?$/;
const DEFAULT_PORT: Record<string, string> = { http: '80', https: '443' };

/**
 * A Host the parser keeps as written but for case, as its origin and host name; null when it is
 * another (the parser reads it). Each host read once per scheme: a service is reached under a
 * handful of names, and a client's made-up ones only refill a bounded map.
 */
function plainHost(scheme: 'http' | 'https', host: string): { origin: string; hostname: string } | null {
  const known = plainHosts[scheme];
  let plain = known.get(host);
  if (plain === undefined) {
    const m = PLAIN_HOST.exec(host);
    plain = null;
    if (m && (m[1] === undefined || (Number(m[1]) <= 65_535 && m[1] !== DEFAULT_PORT[scheme] && !m[1].startsWith('0')))) {
      const lower = host.toLowerCase();
      plain = { origin: `${scheme}://${lower}`, hostname: m[1] === undefined ? lower : lower.slice(0, lower.length - m[1].length - 1) };
    }
    if (known.size >= 100) known.clear();
    known.set(host, plain);
  }
  return plain;
}
const plainHosts = { http: new Map<string, { origin: string; hostname: string } | null>(), https: new Map<string, { origin: string; hostname: string } | null>() };

/** The parts of a URL a request's steps read. */
export interface UrlParts {
  pathname: string;
  search: string;
  href: string;
  origin: string;
  hostname: string;
}

/**
 * The URL of a Node request as the WHATWG parser reads `scheme://Host<target>` (as
 * @whatwg-node/server builds it for yoga): taken apart by hand when the target and host are
 * ones the parser keeps as written, else parsed. Null when it does not parse (a malformed Host).
 */
export function nodeRequestUrl(req: IncomingMessage): UrlParts | null {
  const scheme = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
  const target = req.url ?? '/';
  const host = req.headers.host ?? '';
  const plain = plainHost(scheme, host);
  if (plain !== null && PLAIN_TARGET.test(target) && !DOT_SEGMENT.test(target)) {
    const q = target.indexOf('?');
    const search = q < 0 || q === target.length - 1 ? '' : target.slice(q);
    return { pathname: q < 0 ? target : target.slice(0, q), search, href: plain.origin + target, origin: plain.origin, hostname: plain.hostname };
  }
  try {
    const url = new URL(`${scheme}://${host}${target}`);
    return { pathname: url.pathname, search: url.search, href: url.href, origin: url.origin, hostname: url.hostname };
  } catch {
    return null;
  }
}

/** A Node request as the edge reads it (its URL from `nodeRequestUrl`). */
export function nodeEdgeRequest(req: IncomingMessage, url: UrlParts): TransportRequest {
  return new NodeEdgeRequest(req, url);
}

/**
 * One object per request, its methods shared (every request of the Node path makes one): the
 * query's parameters and the body are made only if a step reads them.
 */
class NodeEdgeRequest implements TransportRequest {
  readonly method: string;
  readonly pathname: string;
  readonly search: string;
  readonly url: string;
  readonly origin: string;
  readonly hostname: string;
  readonly remoteAddress: string | null;
  private params: URLSearchParams | undefined = undefined;
  private body: NodeBody | undefined = undefined;

  constructor(private readonly req: IncomingMessage, url: UrlParts) {
    this.method = (req.method ?? 'GET').toUpperCase();
    this.pathname = url.pathname;
    this.search = url.search;
    this.url = url.href;
    this.origin = url.origin;
    this.hostname = url.hostname;
    this.remoteAddress = req.socket.remoteAddress ?? null;
  }

  get searchParams(): URLSearchParams {
    return (this.params ??= new URLSearchParams(this.search));
  }

  header(name: string): string | null {
    const value = this.req.headers[name];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  }

  bytes(limit: number): Promise<Buffer> {
    return (this.body ??= new NodeBody(this.req)).bytes(limit);
  }

  bodyAbandoned(): boolean {
    return this.body?.abandoned === true;
  }
}

/** A Fetch API request as the edge reads it; `remoteAddress` is the Node socket's when yoga's Node adapter made it. */
export function fetchEdgeRequest(request: Request, url: URL, remoteAddress: string | null): TransportRequest {
  return {
    method: request.method.toUpperCase(),
    pathname: url.pathname,
    search: url.search,
    searchParams: url.searchParams,
    url: request.url,
    origin: url.origin,
    hostname: url.hostname,
    header: (name) => request.headers.get(name),
    ...lazyBody(() => new FetchBody(request)),
    remoteAddress,
  };
}

/**
 * An operation of a graphql-ws connection as the edge reads it: the connection's upgrade
 * request (its Host, Origin and Cookie), with the credential and the ops session's CSRF token
 * of its connection parameters as the Authorization and X-CSRF-Token headers (browsers cannot
 * set headers on a WebSocket). It has no body: its parameters are its message.
 */
export function websocketEdgeRequest(upgrade: IncomingMessage, url: UrlParts, connection: { authorization: string | null; csrfToken: string | null }): TransportRequest {
  return {
    method: 'GET',
    pathname: url.pathname,
    search: '',
    searchParams: new URLSearchParams(),
    url: url.origin + url.pathname,
    origin: url.origin,
    hostname: url.hostname,
    header(name) {
      if (name === 'authorization') return connection.authorization;
      if (name === CSRF_HEADER) return connection.csrfToken;
      const value = upgrade.headers[name];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    },
    ...lazyBody(() => new NoBody()),
    remoteAddress: upgrade.socket.remoteAddress ?? null,
  };
}
