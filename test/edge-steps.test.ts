import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { DomainError } from '../src/domain/shared/errors.ts';
import type { EdgeStep } from '../src/http/edge/runner.ts';
import { ENGINES, startTestApp, type TestApp } from './support/app.ts';
import { allowTestErrorCode } from './support/under-test.ts';

/*
 * One list of edge steps for every transport: a step added to it (here, a throwaway one that
 * marks every answer and refuses a suspended business) runs on REST (the Node server's path
 * and App.handle), GraphQL over HTTP, SSE and graphql-ws, with no other change.
 */

// Not a code of the service: the answer hook is told so (its envelope is still checked).
allowTestErrorCode('business_suspended');
const SUSPENDED = new DomainError({ code: 'business_suspended', type: 'authorization_error', status: 403, description: 'The business is suspended.', catalogue: 'test', details: [] }, 'This business is suspended.');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(ENGINES)('a step added to the edge on %s', (engine) => {
  let t: TestApp;
  const ran: string[] = [];
  const suspended = new Set<string>();
  const probe: EdgeStep = {
    name: 'probe',
    run(ctx) {
      ran.push(`${ctx.transport} ${ctx.kind}`);
      ctx.headers['X-Edge-Probe'] = 'ran';
      if (ctx.principal && suspended.has(ctx.principal.businessId)) throw SUSPENDED;
    },
  };

  const key = () => t.business.test_secret_key;
  const graphql = (body: object, headers: Record<string, string> = {}) =>
    fetch(`${t.baseUrl}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${key()}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const ws = () => createClient({ url: `${t.baseUrl.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${key()}` }, retryAttempts: 0, lazy: true });

  /** The first thing a graphql-ws subscription hears: an event, an error, or the socket's close. */
  function firstOf(subscribe: (sink: { next(v: unknown): void; error(e: unknown): void; complete(): void }) => void) {
    return new Promise<{ kind: string; value: unknown }>((resolve) => {
      subscribe({ next: (value) => resolve({ kind: 'next', value }), error: (value) => resolve({ kind: 'error', value }), complete: () => resolve({ kind: 'complete', value: null }) });
    });
  }

  beforeAll(async () => {
    t = await startTestApp(engine, {}, {
      adjustEdge: (steps) => {
        const at = steps.findIndex((s) => s.name === 'principal') + 1;
        expect(at).toBeGreaterThan(0);
        return [...steps.slice(0, at), probe, ...steps.slice(at)];
      },
    });
  });
  afterAll(() => t?.close());

  it('runs on REST over the Node path and through App.handle, on GraphQL over HTTP, on SSE and on graphql-ws', async () => {
    ran.length = 0;
    const rest = await fetch(`${t.baseUrl}/v1/vehicles`, { headers: { authorization: `Bearer ${key()}` } });
    expect(rest.status).toBe(200);
    expect(rest.headers.get('x-edge-probe')).toBe('ran');
    const post = await fetch(`${t.baseUrl}/v1/customers`, { method: 'POST', headers: { authorization: `Bearer ${key()}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Ada', email: 'ada@example.com' }) });
    expect(post.status).toBe(201);
    expect(post.headers.get('x-edge-probe')).toBe('ran');
    const handled = await t.app.handle(new Request(`${t.baseUrl}/v1/vehicles`, { headers: { authorization: `Bearer ${key()}` } }));
    expect(handled.status).toBe(200);
    expect(handled.headers.get('x-edge-probe')).toBe('ran');
    expect(ran).toEqual(['http rest', 'http rest', 'http rest']);

    const query = await graphql({ query: '{ vehicles(first: 1) { edges { node { id } } } }' });
    expect(query.status).toBe(200);
    expect(query.headers.get('x-edge-probe')).toBe('ran');
    expect(ran.at(-1)).toBe('http graphql');

    const sse = await graphql({ query: 'subscription { events { id } }' }, { accept: 'text/event-stream' });
    expect(sse.status).toBe(200);
    expect(sse.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(sse.headers.get('x-edge-probe')).toBe('ran');
    await sse.body?.cancel();
    expect(ran.at(-1)).toBe('http graphql');

    const client = ws();
    try {
      client.subscribe({ query: 'subscription { events { id } }' }, { next() {}, error() {}, complete() {} });
      // Opening the connection and subscribing: both passed the step.
      for (let i = 0; i < 100 && ran.filter((r) => r === 'websocket graphql').length < 2; i++) await sleep(20);
      expect(ran.filter((r) => r === 'websocket graphql')).toHaveLength(2);
    } finally {
      await client.dispose();
    }
  });

  it('refuses a suspended business on every transport, as one change to the list', async () => {
    const open = ws();
    try {
      // A connection opened before the suspension: its next operation is refused and the connection closed.
      const before = await firstOf((sink) => open.subscribe({ query: '{ vehicles(first: 1) { edges { node { id } } } }' }, sink));
      expect(before.kind).toBe('next');
      suspended.add(t.business.business_id);

      const rest = await fetch(`${t.baseUrl}/v1/vehicles`, { headers: { authorization: `Bearer ${key()}` } });
      expect(rest.status).toBe(403);
      expect((await rest.json()).error).toMatchObject({ type: 'authorization_error', code: 'business_suspended', request_id: rest.headers.get('request-id') });

      const query = await graphql({ query: '{ vehicles(first: 1) { edges { node { id } } } }' });
      expect(query.status).toBe(403);
      expect((await query.json()).errors[0].extensions).toMatchObject({ type: 'authorization_error', code: 'business_suspended' });

      const sse = await graphql({ query: 'subscription { events { id } }' }, { accept: 'text/event-stream' });
      expect(sse.status).toBe(403);
      expect((await sse.json()).errors[0].extensions).toMatchObject({ code: 'business_suspended' });

      const after = await firstOf((sink) => open.subscribe({ query: 'subscription { events { id } }' }, sink));
      expect(after.kind).toBe('error');
      expect(after.value).toMatchObject({ code: 4403, reason: 'business_suspended' });

      const fresh = ws();
      try {
        const refused = await firstOf((sink) => fresh.subscribe({ query: 'subscription { events { id } }' }, sink));
        expect(refused.kind).toBe('error');
        expect(refused.value).toMatchObject({ code: 4403, reason: 'business_suspended' });
      } finally {
        await fresh.dispose();
      }

      // Another business is not suspended.
      const other = await fetch(`${t.baseUrl}/v1/vehicles`, { headers: { authorization: `Bearer ${t.other.test_secret_key}` } });
      expect(other.status).toBe(200);
    } finally {
      suspended.clear();
      await open.dispose();
    }
  });
});
