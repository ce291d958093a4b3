import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { clientAddressResolver, parseTrustProxy } from '../src/http/client-address.ts';
import { ENGINES, graphqlClient, restClient, startTestApp, type TestApp } from './support/app.ts';
import { createBooking, createVehicle } from './support/fixtures.ts';

/*
 * X-Forwarded-For is believed only from the proxies TRUST_PROXY names (or counts): the
 * signer's IP recorded on an agreement signature is the real client's behind such a proxy,
 * and the connection's own address otherwise, whatever a client writes in the header. GET
 * /metrics keeps answering only callers on this machine. Over real HTTP on both engines; the
 * client is the test itself on loopback, standing in for the proxy.
 */

describe('TRUST_PROXY', () => {
  it('reads a hop count or a list of addresses, CIDR ranges and names; refuses trusting every peer and what is not an address', () => {
    expect(loadConfig({}).trustProxy).toEqual({ kind: 'none' });
    expect(parseTrustProxy('0')).toEqual({ kind: 'none' });
    expect(parseTrustProxy('2')).toEqual({ kind: 'hops', hops: 2 });
    expect(parseTrustProxy(' loopback, 10.0.0.0/8 ,fd00::/8 ')).toEqual({ kind: 'addresses', addresses: ['loopback', '10.0.0.0/8', 'fd00::/8'] });
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY must name the proxies/);
    expect(() => loadConfig({ TRUST_PROXY: 'proxy.internal' })).toThrow(/TRUST_PROXY must be a number of proxy hops.*proxy\.internal/);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33' })).toThrow(/TRUST_PROXY/);
  });

  it('takes the first address from the right that is not a trusted proxy, and ignores the header from an untrusted peer', () => {
    const none = clientAddressResolver({ kind: 'none' });
    expect(none('127.0.0.1', '203.0.113.7')).toEqual({ address: '127.0.0.1', throughTrustedProxy: false });

    const loopback = clientAddressResolver(parseTrustProxy('loopback'));
    expect(loopback('127.0.0.1', '198.51.100.9, 203.0.113.7')).toEqual({ address: '203.0.113.7', throughTrustedProxy: true });
    expect(loopback('::ffff:127.0.0.1', '203.0.113.7')).toEqual({ address: '203.0.113.7', throughTrustedProxy: true });
    expect(loopback('127.0.0.1', null)).toEqual({ address: '127.0.0.1', throughTrustedProxy: true });
    // A client on the internet writing the header itself is not a proxy.
    expect(loopback('192.0.2.50', '127.0.0.1')).toEqual({ address: '192.0.2.50', throughTrustedProxy: false });

    const chain = clientAddressResolver(parseTrustProxy('loopback, 10.0.0.0/8'));
    expect(chain('127.0.0.1', '203.0.113.7, 10.1.2.3')).toMatchObject({ address: '203.0.113.7' });
    expect(chain('127.0.0.1', '203.0.113.7, 198.51.100.9, 10.1.2.3')).toMatchObject({ address: '198.51.100.9' });

    const oneHop = clientAddressResolver(parseTrustProxy('1'));
    expect(oneHop('10.0.0.5', '198.51.100.9, 203.0.113.7')).toMatchObject({ address: '203.0.113.7' });
    expect(clientAddressResolver(parseTrustProxy('2'))('10.0.0.5', '198.51.100.9, 203.0.113.7')).toMatchObject({ address: '198.51.100.9' });
  });
});

describe.each(ENGINES)('client address behind proxies on %s', (engine) => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  async function app(trustProxy?: string) {
    const started = await startTestApp(engine, trustProxy === undefined ? {} : { trustProxy: parseTrustProxy(trustProxy) });
    apps.push(started);
    return started;
  }

  /** Signs a new booking's agreement through its link with `headers`; the signer's IP as REST and GraphQL show it. */
  async function signedFrom(t: TestApp, headers: Record<string, string>) {
    const api = restClient(t.baseUrl, t.business.test_secret_key);
    const booking = await createBooking(api, (await createVehicle(api)).id);
    expect((await api.post(`/v1/bookings/${booking.id}/agreement`)).status).toBe(201);
    const link = new URL((await api.post(`/v1/bookings/${booking.id}/agreement/send`, { channel: 'email' })).body.signing_url);
    const signed = await restClient(t.baseUrl, null).post(link.pathname + link.search, { signer_name: 'Ada Lovelace', accept: true }, headers);
    expect(signed.status).toBe(200);
    const rest = (await api.get(`/v1/bookings/${booking.id}/agreement`)).body.signer.ip;
    const gql = await graphqlClient(t.baseUrl, t.business.test_secret_key)(`query($id: ID!) { bookingAgreement(bookingId: $id) { signer { ip } } }`, { id: booking.id });
    expect(gql.data.bookingAgreement.signer.ip).toBe(rest);
    return rest as string;
  }

  const metrics = (t: TestApp, headers: Record<string, string> = {}) => fetch(`${t.baseUrl}/metrics`, { headers }).then((res) => res.status);
  const LOCAL = /^(127\.0\.0\.1|::ffff:127\.0\.0\.1|::1)$/;

  it('without TRUST_PROXY records the connection’s address, whatever X-Forwarded-For says; /metrics refuses a forwarded request', async () => {
    const t = await app();
    expect(await signedFrom(t, { 'x-forwarded-for': '203.0.113.7' })).toMatch(LOCAL);
    expect(await metrics(t)).toBe(200);
    expect(await metrics(t, { 'x-forwarded-for': '127.0.0.1' })).toBe(403);
  });

  it('behind a trusted proxy records the real client’s address, from the right of the chain; /metrics answers only a client on this machine', async () => {
    const t = await app('loopback');
    expect(await signedFrom(t, { 'x-forwarded-for': '198.51.100.9, 203.0.113.7' })).toBe('203.0.113.7');
    expect(await signedFrom(t, {})).toMatch(LOCAL);
    expect(await metrics(t)).toBe(200);
    expect(await metrics(t, { 'x-forwarded-for': '127.0.0.1' })).toBe(200);
    expect(await metrics(t, { 'x-forwarded-for': '203.0.113.7' })).toBe(403);
    // Headers the service does not read cannot vouch for a local client.
    expect(await metrics(t, { forwarded: 'for=203.0.113.7' })).toBe(403);
    expect(await metrics(t, { 'x-real-ip': '203.0.113.7' })).toBe(403);
  });

  it('counts hops with a number, and ignores the header from a peer it does not name', async () => {
    const hops = await app('1');
    expect(await signedFrom(hops, { 'x-forwarded-for': '198.51.100.9, 203.0.113.7' })).toBe('203.0.113.7');
    const elsewhere = await app('10.0.0.0/8');
    expect(await signedFrom(elsewhere, { 'x-forwarded-for': '203.0.113.7' })).toMatch(LOCAL);
    expect(await metrics(elsewhere, { 'x-forwarded-for': '127.0.0.1' })).toBe(403);
  });
});
