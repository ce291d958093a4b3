import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, graphqlClient, restClient, startTestApp, type TestApp } from './support/app.ts';
import { startLoopbackDns, type LoopbackDns } from './support/dns-server.ts';

/*
 * Custom domains, verified through DNS: the records to create, a verification refused while a
 * record is missing or wrong (nothing changes), accepted once the zone has both, checked
 * against a real DNS server on loopback that the test starts and edits.
 */

describe.each(ENGINES)('custom domains on %s', (engine) => {
  let t: TestApp;
  let dns: LoopbackDns;
  let api: ReturnType<typeof restClient>;
  let gql: ReturnType<typeof graphqlClient>;

  beforeAll(async () => {
    dns = await startLoopbackDns();
    t = await startTestApp(engine, { dnsServers: [dns.server], dnsTimeoutMs: 300, customDomainTarget: 'sites.rentals.example' });
    api = restClient(t.baseUrl, t.business.test_secret_key);
    gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
  });
  afterAll(async () => {
    await t?.close();
    await dns?.close();
  });

  it('adds a domain, lists the records to create, refuses verification while one is missing or wrong, then verifies it', async () => {
    const added = await api.post('/v1/domains', { hostname: 'WWW.Sunny-Rentals.com.' });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ object: 'domain', id: expect.stringMatching(/^dom_/), hostname: 'www.sunny-rentals.com', state: 'pending_verification', verified_at: null, next_states: ['verified'] });
    const domainId = added.body.id as string;
    expect((await api.post('/v1/domains', { hostname: 'www.sunny-rentals.com' })).body.error).toMatchObject({ code: 'domain_exists', domain_id: domainId });

    const requirements = await api.get(`/v1/domains/${domainId}/verification`);
    expect(requirements.status).toBe(200);
    expect(requirements.body).toMatchObject({ object: 'domain_verification', domain_id: domainId, hostname: 'www.sunny-rentals.com', state: 'pending_verification' });
    const [txt, cname] = requirements.body.records;
    expect(txt).toMatchObject({ type: 'TXT', name: '_rental-verification.www.sunny-rentals.com', value: expect.stringMatching(/^rental-verification=[0-9a-f]{32}$/) });
    expect(cname).toMatchObject({ type: 'CNAME', name: 'www.sunny-rentals.com', value: 'sites.rentals.example' });

    // Nothing in DNS yet: both records named, nothing changed.
    let res = await api.post(`/v1/domains/${domainId}/verify`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request', code: 'dns_records_missing' });
    expect(res.body.error.missing_records).toEqual([`TXT ${txt.name} → ${txt.value}`, `CNAME ${cname.name} → ${cname.value}`]);
    expect(dns.questions).toEqual(expect.arrayContaining([{ name: txt.name, type: 'TXT' }]));

    // The CNAME alone, and a TXT record with another token: still refused, naming the TXT record.
    dns.records.set(cname.name, { CNAME: ['SITES.rentals.example'] });
    dns.records.set(txt.name, { TXT: ['rental-verification=0123456789abcdef0123456789abcdef'] });
    res = await api.post(`/v1/domains/${domainId}/verify`);
    expect(res.body.error.missing_records).toEqual([`TXT ${txt.name} → ${txt.value}`]);
    expect((await api.get(`/v1/domains/${domainId}/verification`)).body.state).toBe('pending_verification');

    // DNS failing: 502, nothing changed.
    dns.records.set(txt.name, { TXT: ['v=spf1 -all', txt.value] });
    dns.failing = true;
    res = await api.post(`/v1/domains/${domainId}/verify`);
    expect(res.status).toBe(502);
    expect(res.body.error).toMatchObject({ type: 'integration_error', code: 'dns_unavailable' });
    dns.failing = false;

    res = await api.post(`/v1/domains/${domainId}/verify`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: domainId, state: 'verified', verified_at: expect.any(String) });
    expect((await api.post(`/v1/domains/${domainId}/verify`)).body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'verified' });
    const events = (await api.get('/v1/events?type=domain.verified')).body.data;
    expect(events.map((e: any) => e.data.object.id)).toContain(domainId);
  });

  it('answers the DNS records to create when the domain is added, the same as its verification read, over REST and GraphQL', async () => {
    // REST: the create answer carries the records the verification read lists
    const added = await api.post('/v1/domains', { hostname: 'rent.sunny-rentals.com' });
    expect(added.status).toBe(201);
    const read = (await api.get(`/v1/domains/${added.body.id}/verification`)).body;
    expect(added.body.records).toEqual(read.records);
    expect(added.body.records).toEqual([
      { type: 'TXT', name: '_rental-verification.rent.sunny-rentals.com', value: expect.stringMatching(/^rental-verification=[0-9a-f]{32}$/), purpose: expect.any(String) },
      { type: 'CNAME', name: 'rent.sunny-rentals.com', value: 'sites.rentals.example', purpose: expect.any(String) },
    ]);
    // And the domain's other answers too; its event does not repeat them
    const listed = (await api.get('/v1/domains')).body.data.find((d: any) => d.id === added.body.id);
    expect(listed.records).toEqual(read.records);
    const event = (await api.get('/v1/events?type=domain.created')).body.data.find((e: any) => e.data.object.id === added.body.id);
    expect(event.data.object).not.toHaveProperty('records');

    // GraphQL: the same from the mutation's result
    const created = await gql(`mutation { addDomain(input: { hostname: "go.sunny-rentals.com" }) { id records { type name value purpose } } }`);
    expect(created.errors).toBeUndefined();
    const verification = await gql(`query($id: ID!) { domainVerification(domainId: $id) { records { type name value purpose } } }`, { id: created.data.addDomain.id });
    expect(created.data.addDomain.records).toEqual(verification.data.domainVerification.records);
    expect(created.data.addDomain.records.map((r: any) => r.type)).toEqual(['TXT', 'CNAME']);
  });

  it('lists domains by state over REST and GraphQL, and refuses hostnames that are not public', async () => {
    const second = await gql(`mutation { addDomain(input: { hostname: "book.sunny-rentals.com" }) { id hostname state } }`);
    expect(second.errors).toBeUndefined();
    const listed = await api.get('/v1/domains?state=pending_verification');
    expect(listed.body).toMatchObject({ object: 'list', url: '/v1/domains' });
    expect(listed.body.data.map((d: any) => d.hostname)).toContain('book.sunny-rentals.com');
    expect(listed.body.data.map((d: any) => d.state)).not.toContain('verified');
    const verification = await gql(`query($id: ID!) { domainVerification(domainId: $id) { hostname records { type name value } } }`, { id: second.data.addDomain.id });
    expect(verification.data.domainVerification.records.map((r: any) => r.type)).toEqual(['TXT', 'CNAME']);
    for (const hostname of ['localhost', 'example', '192.168.1.10', 'bad_label.example.com', '-lead.example.com', 'shop.example.test', `${'a'.repeat(64)}.example.com`]) {
      const res = await api.post('/v1/domains', { hostname });
      expect({ hostname, status: res.status, param: res.body.error?.param }).toEqual({ hostname, status: 422, param: 'hostname' });
    }
  });
});
