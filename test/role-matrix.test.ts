import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileRoutes } from '../rest-adapter/adapter.ts';
import { routes } from '../rest-adapter/routes/index.ts';
import { PERMISSION_GROUPS, type Permission } from '../src/domain/access/permissions.ts';
import { createApiKey } from '../src/platform/api-keys.ts';
import { addTeamMember } from '../src/platform/team-members.ts';
import { schema } from '../src/schema/index.ts';
import { ENGINES, restClient, startTestApp, type TestApp } from './support/app.ts';

/*
 * The role matrix, generated from the route table: for each team role a key bound to a member
 * of that role calls every route. The answer is 403 `permission_denied` exactly when the
 * contract's matrix (written out below, apart from the code under test) denies the permission
 * the route's operation declares; otherwise anything but a 403 (unknown ids: 404 is fine).
 */

type Role = 'owner' | 'admin' | 'manager' | 'agent' | 'viewer';
const ROLES: Role[] = ['owner', 'admin', 'manager', 'agent', 'viewer'];

/** The contract's "Permissions": who may read and write which group. */
function contractAllows(role: Role, permission: Permission): boolean {
  const [group, access] = permission.split(':') as [string, 'read' | 'write'];
  switch (role) {
    case 'owner':
    case 'admin':
      return true;
    case 'manager':
      return access === 'read' || !['business', 'team', 'domains', 'webhooks'].includes(group);
    case 'agent':
      return access === 'read'
        ? group !== 'reports'
        : ['quotes', 'bookings', 'customers', 'messages', 'pickup', 'returns', 'vehicle_access', 'identity', 'agreements', 'insurance'].includes(group);
    case 'viewer':
      return access === 'read';
  }
}

const UNKNOWN = 'unknown_01jd3m4k5n6p7q8r9s0t1v2w3x';
const compiled = compileRoutes(schema, routes);

describe.each(ENGINES)('the role matrix on %s', (engine) => {
  let t: TestApp;
  const keys = {} as Record<Role, string>;

  beforeAll(async () => {
    t = await startTestApp(engine);
    for (const role of ROLES) {
      const member = (await addTeamMember(t.db.prisma, { businessId: t.business.business_id, email: `${role}@matrix.example.com`, role }))!;
      keys[role] = (await createApiKey(t.db.prisma, { businessId: t.business.business_id, livemode: false, kind: 'secret', memberId: member.id })).key;
    }
  });
  afterAll(async () => t?.close());

  it('every declared permission is a <group>:read|write of the contract', () => {
    for (const c of compiled) {
      const permission = c.operation?.access.permission;
      if (permission) expect(PERMISSION_GROUPS as readonly string[], `${c.route.method} ${c.route.path}`).toContain(permission.split(':')[0]);
    }
  });

  it.each(ROLES)('%s: every route answers 403 permission_denied exactly when the matrix denies it', async (role) => {
    const api = restClient(t.baseUrl, keys[role]);
    const mismatches: string[] = [];
    let denied = 0;
    for (const c of compiled) {
      const permission = c.operation!.access.permission;
      const path = c.route.path.replace(/\{\w+\}/g, UNKNOWN);
      const answer = await api.call(c.route.method, path, c.route.method === 'POST' ? {} : undefined);
      const shouldDeny = permission !== null && !contractAllows(role, permission);
      const wasDenied = answer.status === 403 && answer.body?.error?.code === 'permission_denied';
      if (shouldDeny) denied++;
      if (shouldDeny ? !wasDenied || answer.body.error.permission !== permission : answer.status === 403) {
        mismatches.push(`${c.route.method} ${c.route.path} (${permission ?? 'no permission'}): ${answer.status} ${answer.body?.error?.code ?? ''}`);
      }
    }
    expect(mismatches).toEqual([]);
    // The matrix is exercised, not vacuous: owners and admins are never denied, the others are.
    expect(denied > 0).toBe(role !== 'owner' && role !== 'admin');
  });
});
