import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { compileRoutes } from '../../rest-adapter/adapter.ts';
import { openApiDocument } from '../../rest-adapter/openapi.ts';
import { routes } from '../../rest-adapter/routes/index.ts';
import { STATUS_BY_TYPE } from '../../src/domain/shared/errors.ts';
import { schema } from '../../src/schema/index.ts';
import { isTestErrorCode } from './under-test.ts';

/*
 * Every answer the end-to-end suites get over REST is checked against the OpenAPI document the
 * service serves: the operation matched by method and path, the response of its status, the
 * schema of that response (success or the error envelope, its objects read as closed) and, for
 * an error, that its code is one the response lists. The suites' one answer hook
 * (test/support/answer-hook.ts) calls `checkFetched` for each answer, so a mismatch fails the
 * test that made the request.
 */

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type Json = Record<string, any>;

export interface OpenApiDocument {
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json> };
  webhooks?: Record<string, Record<string, Json>>;
}

/** Paths outside the OpenAPI document on purpose: the edge's own steps (links a customer or a browser follows, health, docs). */
const EDGE_PATHS: RegExp[] = [
  /^\/health(\/|$)/,
  /^\/graphql$/,
  /^\/docs(\/|$)/,
  /^\/v1\/openapi\.json$/,
  /^\/v1\/agreements\/[^/]+\/sign$/,
  /^\/v1\/team\/invitations\/[^/]+\/accept$/,
  /^\/v1\/files\/[^/]+\/(upload|download)$/,
  /^\/v1\/processor\/[^/]+\/webhook$/,
];

export interface AnswerStats {
  /** Answers checked against the response schema of their operation. */
  validated: number;
  /** Error answers of a path no operation has (an unknown route), checked against the error envelope. */
  unrouted: number;
  /** Answers of the edge's own paths (EDGE_PATHS), outside the document. */
  edge: number;
  /** Webhook deliveries checked against the document's `webhooks` (test/support/receiver.ts). */
  webhooks: number;
  /** GraphQL answers whose errors were checked against the error catalogue. */
  graphql: number;
}

const stats: AnswerStats = { validated: 0, unrouted: 0, edge: 0, webhooks: 0, graphql: 0 };

/** How many answers this process has checked so far. */
export const answerStats = (): AnswerStats => ({ ...stats });

interface Matcher {
  template: string;
  method: string;
  pattern: RegExp;
  params: number;
  operation: Json;
}

export class OpenApiChecker {
  private readonly ajv: Ajv2020;
  private readonly matchers: Matcher[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly doc: OpenApiDocument) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'openapi:doc', components: closed(doc.components) }, 'openapi:doc');
    this.matchers = Object.entries(doc.paths)
      .flatMap(([template, methods]) =>
        Object.entries(methods).map(([method, operation]) => ({
          template,
          method: method.toUpperCase(),
          pattern: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`),
          params: (template.match(/\{/g) ?? []).length,
          operation,
        })),
      )
      // A literal segment wins over a parameter (/v1/team/invitations before /v1/team/{member_id}).
      .sort((a, b) => a.params - b.params);
  }

  /** The operation of a request, or null when no path of the document matches it. */
  match(method: string, pathname: string): Matcher | null {
    return this.matchers.find((m) => m.method === method.toUpperCase() && m.pattern.test(pathname)) ?? null;
  }

  /** A validator of a schema of the document (its $refs resolved against the components). */
  validator(key: string, schema: Json): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(rebase(schema));
      this.validators.set(key, validate);
    }
    return validate;
  }

  /**
   * Check one answer; throws an error naming the request, the status, what is wrong and the
   * answer when it does not match the document.
   */
  check(method: string, url: string, status: number, contentType: string | null, body: unknown): void {
    const pathname = new URL(url, 'http://x').pathname;
    const where = `${method.toUpperCase()} ${pathname} → ${status}`;
    const fail = (why: string): never => {
      throw new Error(`OpenAPI check: ${where}: ${why}\nanswer: ${truncate(JSON.stringify(body))}`);
    };
    const matched = this.match(method, pathname);
    if (!matched) {
      if (EDGE_PATHS.some((p) => p.test(pathname))) {
        stats.edge++;
        return;
      }
      if (status < 400) fail('no operation of the OpenAPI document answers this method and path');
      if (typeof body === 'object' && body !== null) this.validate('#error', { $ref: '#/components/schemas/Error' }, body, fail);
      stats.unrouted++;
      return;
    }
    const responses = matched.operation.responses as Record<string, Json>;
    const response = responses[String(status)];
    if (!response) fail(`the operation ${matched.operation.operationId} (${matched.method} ${matched.template}) documents no ${status} answer (documented: ${Object.keys(responses).join(', ')})`);
    const media = Object.entries((response.content ?? {}) as Record<string, Json>);
    if (!media.length) {
      if (body !== '' && body !== undefined) fail('the document says this answer has no body');
      stats.validated++;
      return;
    }
    const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
    const entry = media.find(([name]) => name === type) ?? (type === '' ? media[0] : undefined);
    if (!entry) fail(`answered as ${type || 'no content type'}, documented as ${media.map(([name]) => name).join(', ')}`);
    const [mediaType, content] = entry!;
    if (mediaType === 'application/json') {
      this.validate(`${matched.method} ${matched.template} ${status}`, content.schema, body, fail);
      const code = (body as Json | null)?.error?.code;
      const codes = response['x-error-codes'] as string[] | undefined;
      if (status >= 400 && codes && !codes.includes(code) && !isTestErrorCode(code)) fail(`the error code ${code} is not one the ${status} answer lists (${codes.join(', ')})`);
    } else if (typeof body !== 'string') {
      fail(`documented as ${mediaType}, answered JSON`);
    } else if (mediaType === 'text/csv' && Array.isArray(content.schema?.['x-csv-columns'])) {
      const documented = (content.schema['x-csv-columns'] as { name: string }[]).map((c) => c.name).join(',');
      const header = body.split('\r\n')[0];
      if (header !== documented) fail(`the CSV header is ${header}, the document lists the columns ${documented}`);
    }
    stats.validated++;
  }

  /**
   * What is wrong with a webhook delivery (its signature headers, its event against the
   * webhook of its type), or null.
   */
  webhookProblem(headers: Record<string, string | string[] | undefined>, body: unknown): string | null {
    const type = (body as Json | null)?.type;
    const hook = this.doc.webhooks?.[type]?.post;
    if (!hook) return `OpenAPI check: a webhook of type ${type}, which the document's webhooks section lacks`;
    for (const p of hook.parameters as Json[]) if (p.in === 'header' && p.required && !headers[p.name]) return `OpenAPI check: webhook ${type}: no ${p.name} header`;
    const validate = this.validator(`webhook ${type}`, hook.requestBody.content['application/json'].schema);
    stats.webhooks++;
    if (validate(body)) return null;
    const errors = (validate.errors ?? []).filter((e) => !e.schemaPath.includes('TestWebhookObject') || (body as Json).data?.object?.object === 'test_webhook');
    return `OpenAPI check: webhook ${type} does not match its schema:\n${errors.slice(0, 8).map((e) => `  ${e.instancePath || '(root)'} ${e.message} [${e.schemaPath}]`).join('\n')}\nevent: ${truncate(JSON.stringify(body))}`;
  }

  private validate(key: string, schema: Json, body: unknown, fail: (why: string) => never) {
    const validate = this.validator(key, schema);
    if (!validate(body)) {
      fail(
        `the answer does not match its schema:\n${(validate.errors ?? [])
          .slice(0, 8)
          .map((e) => `  ${e.instancePath || '(root)'} ${e.message}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''} [${e.schemaPath}]`)
          .join('\n')}`,
      );
    }
  }
}

/**
 * The document's schemas, closed: an object whose properties the document lists answers no
 * other field. The document leaves them open (a client must ignore a field it does not know,
 * so fields may be added); the service's own answers must not carry one the document lacks.
 */
function closed(schema: unknown): any {
  if (Array.isArray(schema)) return schema.map(closed);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Json = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, k === 'properties' ? Object.fromEntries(Object.entries(v as Json).map(([name, s]) => [name, closed(s)])) : closed(v)]));
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

/** The schema with its `#/components/...` references pointed at the document's components. */
function rebase(schema: unknown): any {
  if (Array.isArray(schema)) return schema.map(rebase);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `openapi:doc${v}` : rebase(v)]));
}

const truncate = (text: string | undefined) => (text && text.length > 1500 ? `${text.slice(0, 1500)}…` : text);

const checkers = new Map<string, Promise<OpenApiChecker>>();

/*
 * The one answer hook (test/support/answer-hook.ts, a vitest setup file wrapping the global
 * fetch) hands `checkFetched` every answer of a service under test (test/support/under-test.ts):
 * restClient's, graphqlClient's, the typed client's, a test's raw `fetch` and App.handle alike.
 */
const problems: string[] = [];

/** The mismatches found since the last call (the setup file's afterEach fails the test on any, even one a test caught). */
export function takeProblems(): string[] {
  return problems.splice(0);
}

/**
 * Check one answer the service (at `service`, its origin) gave to a test (method, URL, the Response, its body text):
 * /v1 answers against the OpenAPI document it serves, /graphql answers' errors against the
 * error catalogue. Throws (and records) a mismatch.
 */
export async function checkFetched(method: string, url: URL, res: { status: number; headers: Headers }, text: string, service = url.origin): Promise<void> {
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON: keep the text */
  }
  try {
    if (url.pathname === '/graphql') {
      const problem = await graphqlProblem(parsed);
      if (problem) throw new Error(`GraphQL check: ${method} ${url.pathname} → ${res.status}: ${problem}\nanswer: ${truncate(text)}`);
      stats.graphql++;
      return;
    }
    const checker = await checkerFor(service);
    checker.check(method, url.pathname + url.search, res.status, res.headers.get('content-type'), parsed);
  } catch (err) {
    problems.push((err as Error).message);
    throw err;
  }
}

let catalogue: Promise<Set<string>> | null = null;

/** The codes of the error catalogues (docs/errors.md). */
function errorCodes(): Promise<Set<string>> {
  return (catalogue ??= import('../../scripts/error-reference.ts').then(async (m) => new Set((await m.loadCatalogues()).map((d) => d.code))));
}

/** What is wrong with a GraphQL answer's errors (each carries the envelope's fields, its code one of the catalogue), or null. */
async function graphqlProblem(body: unknown): Promise<string | null> {
  if (typeof body !== 'object' || body === null) return 'the answer is not JSON';
  const errors = (body as Json).errors;
  if (errors === undefined) return 'data' in body ? null : 'neither data nor errors';
  if (!Array.isArray(errors) || errors.length === 0) return 'errors is not a non-empty list';
  const codes = await errorCodes();
  for (const error of errors as Json[]) {
    const ext = error?.extensions as Json | undefined;
    if (typeof error?.message !== 'string') return 'an error without a message';
    if (!ext || !(codes.has(ext.code) || isTestErrorCode(ext.code))) return `the error code ${ext?.code} is not one of the error catalogue (docs/errors.md)`;
    if (!ERROR_TYPES.has(ext.type)) return `the error type ${ext.type} is not one of the envelope's`;
    if (typeof ext.request_id !== 'string') return 'an error without request_id';
  }
  return null;
}

const ERROR_TYPES = new Set(Object.keys(STATUS_BY_TYPE));

/** The checker of the service at `baseUrl`, from the document it serves (fetched once). */
export function checkerFor(baseUrl: string): Promise<OpenApiChecker> {
  let checker = checkers.get(baseUrl);
  if (!checker) {
    checker = fetch(`${baseUrl}/v1/openapi.json`).then(async (res) => {
      if (res.status !== 200) throw new Error(`OpenAPI check: GET ${baseUrl}/v1/openapi.json answered ${res.status}`);
      return new OpenApiChecker((await res.json()) as OpenApiDocument);
    });
    checker.catch(() => checkers.delete(baseUrl));
    checkers.set(baseUrl, checker);
  }
  return checker;
}

let local: OpenApiChecker | null = null;

/** The checker of the document of the standard route table, made in this process (no server needed). */
export function localChecker(): OpenApiChecker {
  return (local ??= new OpenApiChecker(JSON.parse(JSON.stringify(openApiDocument(compileRoutes(schema, routes))))));
}
