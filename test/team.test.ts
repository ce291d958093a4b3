import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../src/admin/admin-commands.ts';
import { ALL_PERMISSIONS, ROLE_PERMISSIONS } from '../src/domain/access/permissions.ts';
import { createApiKey } from '../src/platform/api-keys.ts';
import { addTeamMember } from '../src/platform/team-members.ts';
import { request as httpRequest } from 'node:http';
import { parseTrustProxy } from '../src/http/client-address.ts';
import { createBusiness } from '../src/platform/businesses.ts';
import { ENGINES, graphqlClient, restClient, startTestApp, type TestApp } from './support/app.ts';
import { startLoopbackSmtp, type LoopbackSmtp } from './support/smtp-server.ts';

/*
 * The team over REST and GraphQL: an invitation accepted once through its link (no API key),
 * refused a second time, after expiry or with an altered token; members listed, read and
 * given another role; the owners protected; a removed member's keys dead at once.
 */

type Role = 'owner' | 'admin' | 'manager' | 'agent' | 'viewer';

describe.each(ENGINES)('the team on %s', (engine) => {
  let t: TestApp;
  let api: ReturnType<typeof restClient>;
  let gql: ReturnType<typeof graphqlClient>;
  let n = 0;

  beforeAll(async () => {
    t = await startTestApp(engine);
    api = restClient(t.baseUrl, t.business.test_secret_key);
    gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
  });
  afterAll(async () => t?.close());

  const email = (label: string) => `${label}-${++n}@example.com`;

  /** A member made by the admin tool, and a test secret key bound to it. */
  async function memberWithKey(role: Role, livemode = false) {
    const member = (await addTeamMember(t.db.prisma, { businessId: t.business.business_id, email: email(role), name: `A ${role}`, role }))!;
    const { key } = await createApiKey(t.db.prisma, { businessId: t.business.business_id, livemode, kind: 'secret', memberId: member.id });
    return { member, key, api: restClient(t.baseUrl, key) };
  }

  /** Invite over REST and accept through the link; the new member. */
  async function invitedMember(role: Role, by = api) {
    const invited = await by.post('/v1/team/invitations', { email: email('invitee'), role });
    expect(invited.status).toBe(201);
    const accepted = await restClient(t.baseUrl, null).post(invited.body.accept_url.slice(t.baseUrl.length), { name: 'Invitee' });
    expect(accepted.status).toBe(201);
    return accepted.body;
  }

  it('invites by email, shows the one-time link only in the answer, and the link makes the member once', async () => {
    const address = email('sam');
    const invited = await api.post('/v1/team/invitations', { email: address.toUpperCase(), role: 'agent' });
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({ object: 'invitation', email: address, role: 'agent', state: 'pending', livemode: false, accept_url: expect.stringContaining('/accept?token=') });
    expect(invited.body.id).toMatch(/^inv_/);
    expect(Date.parse(invited.body.expires_at) - Date.parse(invited.body.created_at)).toBeCloseTo(7 * 86_400_000, -4);
    const read = await api.get(`/v1/team/invitations/${invited.body.id}`);
    expect(read.body).toMatchObject({ id: invited.body.id, state: 'pending', accept_url: null });
    expect((await api.get(`/v1/events?type=invitation.created&limit=1`)).body.data[0].data.object).toMatchObject({ id: invited.body.id, state: 'pending' });
    expect(JSON.stringify((await api.get('/v1/events?limit=100')).body)).not.toContain(new URL(invited.body.accept_url).searchParams.get('token'));

    // Accepting needs no API key: the link's token is the authorization.
    const link = invited.body.accept_url.slice(t.baseUrl.length);
    const anonymous = restClient(t.baseUrl, null);
    const accepted = await anonymous.post(link, { name: 'Sam Agent' });
    expect(accepted.status).toBe(201);
    expect(accepted.body).toMatchObject({ object: 'team_member', email: address, name: 'Sam Agent', role: 'agent', permissions: [...ROLE_PERMISSIONS.agent].sort(byList) });
    expect(accepted.body.id).toMatch(/^mem_/);
    expect((await api.get(`/v1/team/invitations/${invited.body.id}`)).body).toMatchObject({ state: 'accepted', member_id: accepted.body.id, accepted_at: expect.any(String) });
    const created = (await api.get('/v1/events?type=team_member.created&limit=1')).body.data[0];
    expect(created.data.object).toMatchObject({ id: accepted.body.id, role: 'agent' });

    const again = await anonymous.post(link, { name: 'Sam Again' });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ type: 'conflict', code: 'invalid_state_transition', current_state: 'accepted', request_id: expect.any(String) });
    // Inviting someone who is already a member is 409.
    const member = await api.post('/v1/team/invitations', { email: address, role: 'viewer' });
    expect(member.status).toBe(409);
    expect(member.body.error).toMatchObject({ code: 'team_member_exists', param: 'email' });
  });

  it('refuses an altered token, a missing name, a GET, and an expired or revoked invitation', async () => {
    const anonymous = restClient(t.baseUrl, null);
    const invited = await api.post('/v1/team/invitations', { email: email('late'), role: 'viewer' });
    const link = invited.body.accept_url.slice(t.baseUrl.length) as string;
    const last = link.at(-1) === 'A' ? 'B' : 'A';
    for (const altered of [link.slice(0, -1) + last, link.replace(/\?token=.*/, ''), link.replace(invited.body.id, 'inv_01jd3m4k5n6p7q8r9s0t1v2w3x')]) {
      const refused = await anonymous.post(altered, { name: 'Mallory' });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ type: 'authorization_error', code: 'invitation_token_invalid' });
    }
    expect((await anonymous.post(link, {})).body.error).toMatchObject({ code: 'parameter_missing', param: 'name' });
    expect((await anonymous.post(link, '{"name":')).body.error).toMatchObject({ code: 'invalid_json' });
    expect((await anonymous.get(link)).status).toBe(405);

    await t.db.prisma.invitation.update({ where: { id: invited.body.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await api.get(`/v1/team/invitations/${invited.body.id}`)).body.state).toBe('expired');
    const expired = await anonymous.post(link, { name: 'Too Late' });
    expect(expired.status).toBe(409);
    expect(expired.body.error).toMatchObject({ code: 'invitation_expired' });
    expect((await api.get(`/v1/team?email=${invited.body.email}`)).body.data).toEqual([]);

    const revoked = await api.post('/v1/team/invitations', { email: email('revoked'), role: 'viewer' });
    expect((await api.post(`/v1/team/invitations/${revoked.body.id}/revoke`)).body).toMatchObject({ state: 'revoked' });
    expect((await anonymous.post(revoked.body.accept_url.slice(t.baseUrl.length), { name: 'Nope' })).body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'revoked' });
    const pending = (await api.get('/v1/team/invitations?state=pending&limit=100')).body.data.map((i: any) => i.id);
    expect(pending).not.toContain(revoked.body.id);
    expect(pending).not.toContain(invited.body.id);
  });

  it("expires a test key's invitation by the sandbox clock, a live key's by real time, over REST, GraphQL and the accept link", async () => {
    // Given a business of its own with an invitation made by its test key and one by its live key
    const biz = await createBusiness(t.db.prisma, { name: 'Clocked Team' });
    const sandbox = restClient(t.baseUrl, biz.test_secret_key);
    const live = restClient(t.baseUrl, biz.live_secret_key);
    const inSandbox = (await sandbox.post('/v1/team/invitations', { email: email('sandbox'), role: 'viewer' })).body;
    const inLive = (await live.post('/v1/team/invitations', { email: email('live'), role: 'viewer' })).body;
    expect([inSandbox.state, inLive.state]).toEqual(['pending', 'pending']);

    // When the sandbox clock moves past the 7 days
    expect((await sandbox.post('/v1/test/clock/advance', { seconds: 7 * 86_400 + 60 })).status).toBe(200);

    // Then the sandbox's invitation is expired, whichever key reads it; the live one is still pending
    for (const client of [sandbox, live]) {
      expect((await client.get(`/v1/team/invitations/${inSandbox.id}`)).body.state).toBe('expired');
      expect((await client.get(`/v1/team/invitations/${inLive.id}`)).body.state).toBe('pending');
      const expired = (await client.get('/v1/team/invitations?state=expired')).body.data.map((i: any) => i.id);
      const pending = (await client.get('/v1/team/invitations?state=pending')).body.data.map((i: any) => i.id);
      expect({ expired, pending }).toEqual({ expired: [inSandbox.id], pending: [inLive.id] });
    }
    const read = await graphqlClient(t.baseUrl, biz.test_secret_key)(`query($a: ID!, $b: ID!) { a: teamInvitation(id: $a) { state nextStates } b: teamInvitation(id: $b) { state } }`, { a: inSandbox.id, b: inLive.id });
    expect(read.data).toEqual({ a: { state: 'expired', nextStates: [] }, b: { state: 'pending' } });
    // And its link is refused as expired, the live one's still works
    const anonymous = restClient(t.baseUrl, null);
    const refused = await anonymous.post(inSandbox.accept_url.slice(t.baseUrl.length), { name: 'Too Late' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'invitation_expired' });
    expect((await anonymous.post(inLive.accept_url.slice(t.baseUrl.length), { name: 'In Time' })).status).toBe(201);
    // And a sandbox invitation made now runs 7 days from the sandbox's now
    const later = (await sandbox.post('/v1/team/invitations', { email: email('later'), role: 'viewer' })).body;
    expect(Date.parse(later.expires_at) - Date.now()).toBeGreaterThan(14 * 86_400_000 - 60_000);
    expect((await anonymous.post(later.accept_url.slice(t.baseUrl.length), { name: 'On Time' })).status).toBe(201);
  });

  it('lists and reads members (filters, pages) over REST and GraphQL', async () => {
    const first = await invitedMember('viewer');
    const second = await invitedMember('manager');
    const page = await api.get('/v1/team?limit=1');
    expect(page.body).toMatchObject({ object: 'list', url: '/v1/team', has_more: true });
    expect(page.body.data[0].id).toBe(second.id);
    expect((await api.get(`/v1/team?limit=1&starting_after=${second.id}`)).body.data[0].id).toBe(first.id);
    const managers = (await api.get('/v1/team?role=manager&limit=100')).body.data;
    expect(managers.map((m: any) => m.role)).toEqual(managers.map(() => 'manager'));
    expect(managers.map((m: any) => m.id)).toContain(second.id);
    expect((await api.get('/v1/team?colour=blue')).body.error).toMatchObject({ code: 'parameter_unknown', param: 'colour' });
    expect((await api.get(`/v1/team/${second.id}`)).body).toEqual({
      object: 'team_member', id: second.id, email: second.email, name: 'Invitee', role: 'manager', created_at: second.created_at, livemode: false, permissions: second.permissions,
    });
    expect((await api.get('/v1/team/mem_01jd3m4k5n6p7q8r9s0t1v2w3x')).status).toBe(404);
    // Another business does not see them.
    expect((await restClient(t.baseUrl, t.other.test_secret_key).get(`/v1/team/${second.id}`)).status).toBe(404);

    const q = await gql(`query($id: ID!) { teamMember(id: $id) { id role permissions email } teamMembers(first: 2, role: manager) { edges { node { id role } } } }`, { id: second.id });
    expect(q.errors).toBeUndefined();
    expect(q.data.teamMember).toEqual({ id: second.id, role: 'manager', permissions: second.permissions, email: second.email });
    expect(q.data.teamMembers.edges[0].node).toEqual({ id: second.id, role: 'manager' });
  });

  it('changes a role over GraphQL; the member\'s key acts with the new role at once', async () => {
    const { member, api: memberApi } = await memberWithKey('viewer');
    expect((await memberApi.post('/v1/vehicles', { name: 'x' })).body.error).toMatchObject({ code: 'permission_denied', permission: 'vehicles:write' });
    const changed = await gql(`mutation($id: ID!) { updateTeamMember(id: $id, input: { role: manager, permissions: ["webhooks:write"] }) { id role permissions } }`, { id: member.id });
    expect(changed.errors).toBeUndefined();
    expect(changed.data.updateTeamMember.role).toBe('manager');
    expect(changed.data.updateTeamMember.permissions).toContain('vehicles:write');
    expect(changed.data.updateTeamMember.permissions).toContain('webhooks:write');
    expect(changed.data.updateTeamMember.permissions).not.toContain('team:write');
    expect((await memberApi.post('/v1/vehicles', {})).body.error?.code).not.toBe('permission_denied');
    expect((await api.get('/v1/events?type=team_member.updated&limit=1')).body.data[0].data.object).toMatchObject({ id: member.id, role: 'manager' });
    // null clears the extra permissions.
    expect((await api.post(`/v1/team/${member.id}`, { permissions: null })).body.permissions).not.toContain('webhooks:write');
  });

  it('a member cannot grant more than it has', async () => {
    const manager = await memberWithKey('manager');
    // A manager lacks team:write altogether.
    expect((await manager.api.post('/v1/team/invitations', { email: email('x'), role: 'viewer' })).body.error).toMatchObject({ code: 'permission_denied', permission: 'team:write' });
    const lead = await memberWithKey('viewer');
    await api.post(`/v1/team/${lead.member.id}`, { permissions: ['team:write'] });
    const beyond = await lead.api.post('/v1/team/invitations', { email: email('y'), role: 'agent' });
    expect(beyond.status).toBe(403);
    expect(beyond.body.error).toMatchObject({ code: 'permission_not_grantable' });
    expect(beyond.body.error.permissions).toContain('bookings:write');
    expect((await lead.api.post('/v1/team/invitations', { email: email('y'), role: 'viewer' })).status).toBe(201);
    expect((await lead.api.post(`/v1/team/${lead.member.id}`, { role: 'admin' })).body.error).toMatchObject({ code: 'permission_not_grantable' });
  });

  it('only an owner may appoint, demote or remove an owner; the last owner stays', async () => {
    const admin = await memberWithKey('admin');
    const owner = await memberWithKey('owner');
    // Remove any other owner left by earlier tests, so that `owner` is the last one.
    const owners = (await api.get('/v1/team?role=owner&limit=100')).body.data.filter((m: any) => m.id !== owner.member.id);
    for (const other of owners) expect((await owner.api.call('DELETE', `/v1/team/${other.id}`)).status).toBe(200);

    const refused = await admin.api.post(`/v1/team/${owner.member.id}`, { role: 'admin' });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: 'authorization_error', code: 'owner_required' });
    expect((await admin.api.call('DELETE', `/v1/team/${owner.member.id}`)).body.error).toMatchObject({ code: 'owner_required' });
    expect((await admin.api.post('/v1/team/invitations', { email: email('boss'), role: 'owner' })).body.error).toMatchObject({ code: 'owner_required' });
    expect((await admin.api.post(`/v1/team/${admin.member.id}`, { role: 'owner' })).body.error).toMatchObject({ code: 'owner_required' });

    const lastDemote = await owner.api.post(`/v1/team/${owner.member.id}`, { role: 'admin' });
    expect(lastDemote.status).toBe(409);
    expect(lastDemote.body.error).toMatchObject({ type: 'conflict', code: 'last_owner' });
    expect((await owner.api.call('DELETE', `/v1/team/${owner.member.id}`)).body.error).toMatchObject({ code: 'last_owner' });
    const viaGraphql = await graphqlClient(t.baseUrl, owner.key)(`mutation($id: ID!) { removeTeamMember(id: $id) { id } }`, { id: owner.member.id });
    expect(viaGraphql.errors?.[0].extensions).toMatchObject({ code: 'last_owner', type: 'conflict' });

    // With a second owner, the first may step down.
    expect((await owner.api.post(`/v1/team/${admin.member.id}`, { role: 'owner' })).body.role).toBe('owner');
    expect((await owner.api.post(`/v1/team/${owner.member.id}`, { role: 'admin' })).body.role).toBe('admin');
    expect((await api.get(`/v1/team/${admin.member.id}`)).body.role).toBe('owner');
  });

  it('removing a member removes it and kills its keys in both environments, at once', async () => {
    const test = await memberWithKey('agent');
    const { key: liveKey } = await createApiKey(t.db.prisma, { businessId: t.business.business_id, livemode: true, kind: 'secret', memberId: test.member.id });
    const live = restClient(t.baseUrl, liveKey);
    expect((await test.api.get('/v1/vehicles')).status).toBe(200);
    expect((await live.get('/v1/vehicles')).status).toBe(200);

    const removed = await gql(`mutation($id: ID!) { removeTeamMember(id: $id) { id email role } }`, { id: test.member.id });
    expect(removed.errors).toBeUndefined();
    expect(removed.data.removeTeamMember).toMatchObject({ id: test.member.id, role: 'agent' });
    for (const dead of [test.api, live]) {
      const answer = await dead.get('/v1/vehicles');
      expect(answer.status).toBe(401);
      expect(answer.body.error).toMatchObject({ code: 'invalid_api_key' });
    }
    expect((await api.get(`/v1/team/${test.member.id}`)).status).toBe(404);
    expect((await api.call('DELETE', `/v1/team/${test.member.id}`)).status).toBe(404);
    expect((await api.get('/v1/events?type=team_member.removed&limit=1')).body.data[0].data.object).toMatchObject({ id: test.member.id, object: 'team_member' });
  });

  it('two uses of one link at the same moment make one member', async () => {
    const invited = await api.post('/v1/team/invitations', { email: email('twice'), role: 'viewer' });
    const link = invited.body.accept_url.slice(t.baseUrl.length);
    const anonymous = restClient(t.baseUrl, null);
    const answers = await Promise.all([anonymous.post(link, { name: 'One' }), anonymous.post(link, { name: 'Two' })]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    expect((await api.get(`/v1/team?email=${invited.body.email}`)).body.data).toHaveLength(1);
  });

  it('the admin command makes a business\'s first owner and a key bound to it', async () => {
    const business = (await runAdminCommand(t.db.prisma, ['business', 'create'], { name: 'Fresh Rentals' })) as { business_id: string };
    const owner = (await runAdminCommand(t.db.prisma, ['member', 'create'], { business: business.business_id, email: 'First@Example.com', name: 'First' })) as { id: string };
    expect(owner).toMatchObject({ id: expect.stringMatching(/^mem_/), email: 'first@example.com', role: 'owner' });
    const key = (await runAdminCommand(t.db.prisma, ['key', 'create'], { business: business.business_id, mode: 'live', kind: 'secret', member: owner.id })) as { key: string };
    const ownerApi = restClient(t.baseUrl, key.key);
    expect((await ownerApi.get(`/v1/team/${owner.id}`)).body).toMatchObject({ role: 'owner', livemode: true, permissions: [...ALL_PERMISSIONS] });
    await expect(runAdminCommand(t.db.prisma, ['member', 'create'], { business: business.business_id, email: 'first@example.com' })).rejects.toThrow(/already a member/);
    await expect(runAdminCommand(t.db.prisma, ['key', 'create'], { business: business.business_id, mode: 'test', kind: 'publishable', member: owner.id })).rejects.toThrow(/secret key/);
    await expect(runAdminCommand(t.db.prisma, ['key', 'create'], { business: business.business_id, mode: 'test', kind: 'secret', member: 'mem_nobody' })).rejects.toThrow(/no member/);
    // An unrestricted key of the business stands as an owner; the owner's own key may not leave the team ownerless.
    expect((await ownerApi.call('DELETE', `/v1/team/${owner.id}`)).body.error).toMatchObject({ code: 'last_owner' });
  });

  it('invites and revokes over GraphQL; the link is in the create answer only', async () => {
    const invited = await gql(`mutation($email: String!) { inviteTeamMember(input: { email: $email, role: viewer }) { id state acceptUrl } }`, { email: email('gql') });
    expect(invited.errors).toBeUndefined();
    expect(invited.data.inviteTeamMember).toMatchObject({ state: 'pending', acceptUrl: expect.stringContaining('token=') });
    const id = invited.data.inviteTeamMember.id;
    const listed = await gql(`{ teamInvitations(first: 1) { edges { node { id acceptUrl state } } } }`);
    expect(listed.data.teamInvitations.edges[0].node).toEqual({ id, acceptUrl: null, state: 'pending' });
    const revoked = await gql(`mutation($id: ID!) { revokeTeamInvitation(id: $id) { state nextStates } }`, { id });
    expect(revoked.data.revokeTeamInvitation).toEqual({ state: 'revoked', nextStates: [] });
    const again = await gql(`mutation($id: ID!) { revokeTeamInvitation(id: $id) { state } }`, { id });
    expect(again.errors?.[0].extensions).toMatchObject({ code: 'invalid_state_transition', current_state: 'revoked' });
  });
});

/** The order of the permission list (ROLE_PERMISSIONS.agent is reads, then writes). */
function byList(a: string, b: string) {
  const all = ROLE_PERMISSIONS.owner;
  return all.indexOf(a as never) - all.indexOf(b as never);
}

/** A POST to this service from a chosen loopback address (127.0.0.x), as a client behind it would connect. */
function postFrom(localAddress: string, url: string, body: unknown): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', localAddress, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe.each(ENGINES)('invitation links on %s', (engine) => {
  let t: TestApp;
  let smtp: LoopbackSmtp;
  let n = 0;

  beforeAll(async () => {
    smtp = await startLoopbackSmtp();
    t = await startTestApp(engine, { invitationAcceptLimit: 3, messaging: { smtpUrl: undefined, sandboxSmtpUrl: smtp.url, from: 'team@rentals.test' } });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  const invitee = () => `invitee-${++n}@example.com`;
  const invite = async () => (await restClient(t.baseUrl, t.business.test_secret_key).post('/v1/team/invitations', { email: invitee(), role: 'agent' })).body;

  it('emails the accept link over SMTP, for an invitation made over REST or GraphQL, and the emailed link makes the member', async () => {
    const invited = await invite();
    const mail = await smtp.waitFor((m) => m.text?.includes(invited.id) === true);
    expect(mail.to).toMatchObject({ text: invited.email });
    expect(mail.subject).toBe('Test Rentals invites you to its team');
    expect(mail.from?.value[0]).toMatchObject({ name: 'Test Rentals', address: 'team@rentals.test' });
    expect(mail.text).toContain(invited.accept_url);
    expect(mail.text).toContain(invited.expires_at.replace(/\.\d+Z$/, ''));
    const link = /(http\S+\/accept\?token=\S+)/.exec(mail.text!)![1];
    const accepted = await restClient(t.baseUrl, null).post(link.slice(t.baseUrl.length), { name: 'Mailed Agent' });
    expect(accepted.status).toBe(201);
    expect(accepted.body).toMatchObject({ email: invited.email, role: 'agent' });

    const gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
    const address = invitee();
    const viaGraphql = await gql(`mutation($email: String!) { inviteTeamMember(input: { email: $email, role: viewer }) { id acceptUrl } }`, { email: address });
    expect(viaGraphql.errors).toBeUndefined();
    const graphqlMail = await smtp.waitFor((m) => m.to !== undefined && JSON.stringify(m.to).includes(address));
    expect(graphqlMail.text).toContain(viaGraphql.data.inviteTeamMember.acceptUrl);
  });

  it('limits uses of accept links per address and per invitation: 429 rate_limited in the envelope, with Retry-After', async () => {
    // The counts are per minute: start well inside one.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 45_000) await new Promise((r) => setTimeout(r, 60_500 - intoMinute));
    const first = await invite();
    const second = await invite();
    const wrong = (invitation: any) => invitation.accept_url.replace(/token=.*/, 'token=wrong');

    // Three tries of the first link from one address (one of its own: the other tests here use 127.0.0.1) are answered (refused for their token); the fourth is not
    for (let i = 0; i < 3; i++) expect((await postFrom('127.0.0.11', wrong(first), { name: 'Mallory' })).status).toBe(403);
    const limited = await postFrom('127.0.0.11', first.accept_url, { name: 'Mallory' });
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited', message: expect.stringContaining('from this address: 3 per minute'), request_id: expect.any(String) });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(limited.headers['ratelimit-limit']).toBe('3');

    // The same link from another address is limited too (per invitation), even with its right token
    const elsewhere = await postFrom('127.0.0.12', first.accept_url, { name: 'Sam' });
    expect(elsewhere.status).toBe(429);
    expect(elsewhere.body.error.message).toContain('for this invitation');

    // Another invitation from a third address is not; from the first address it is
    expect((await postFrom('127.0.0.11', second.accept_url, { name: 'Sam' })).body.error).toMatchObject({ code: 'rate_limited' });
    const accepted = await postFrom('127.0.0.13', second.accept_url, { name: 'Sam' });
    expect(accepted.status).toBe(201);
    expect(accepted.headers['ratelimit-remaining']).toBe('1');
    expect((await restClient(t.baseUrl, t.business.test_secret_key).get(`/v1/team/invitations/${first.id}`)).body.state).toBe('pending');
  });

  it('behind a trusted proxy counts each client by the address the proxy names, not the proxy’s own', async () => {
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 45_000) await new Promise((r) => setTimeout(r, 60_500 - intoMinute));
    const proxied = await startTestApp(engine, { invitationAcceptLimit: 2, trustProxy: parseTrustProxy('loopback') });
    try {
      const api = restClient(proxied.baseUrl, proxied.business.test_secret_key);
      const links: URL[] = [];
      for (let i = 0; i < 3; i++) links.push(new URL((await api.post('/v1/team/invitations', { email: invitee(), role: 'viewer' })).body.accept_url));
      const from = (client: string, link: URL, name: string) => restClient(proxied.baseUrl, null).post(link.pathname + link.search, { name }, { 'x-forwarded-for': client });
      // One client behind the proxy uses up its two tries; another, through the same proxy, still gets in
      expect((await from('203.0.113.7', links[0], 'First')).status).toBe(201);
      expect((await from('203.0.113.7', links[1], 'Second')).status).toBe(201);
      expect((await from('203.0.113.7', links[2], 'Third')).body.error).toMatchObject({ code: 'rate_limited', message: expect.stringContaining('from this address') });
      expect((await from('198.51.100.9', links[2], 'Other Client')).status).toBe(201);
    } finally {
      await proxied.close();
    }
  });
});
