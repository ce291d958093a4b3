import { DomainError } from '../shared/errors.ts';

/** The spec's API groups; a permission is `<group>:read` or `<group>:write`. */
export const PERMISSION_GROUPS = [
  'business', 'team', 'vehicles', 'quotes', 'bookings', 'payments', 'deposits', 'identity',
  'agreements', 'insurance', 'pickup', 'vehicle_access', 'returns', 'charges', 'disputes',
  'customers', 'messages', 'website', 'domains', 'files', 'reports', 'webhooks', 'events',
] as const;

export type PermissionGroup = (typeof PERMISSION_GROUPS)[number];
export type Permission = `${PermissionGroup}:${'read' | 'write'}`;
export type TeamRole = 'owner' | 'admin' | 'manager' | 'agent' | 'viewer';

export const ALL_PERMISSIONS: readonly Permission[] = PERMISSION_GROUPS.flatMap((g) => [`${g}:read`, `${g}:write`] as Permission[]);

const reads = (groups: readonly PermissionGroup[]) => groups.map((g) => `${g}:read` as Permission);
const writes = (groups: readonly PermissionGroup[]) => groups.map((g) => `${g}:write` as Permission);

const MANAGER_WRITES = PERMISSION_GROUPS.filter((g) => !['business', 'team', 'domains', 'webhooks'].includes(g));
const AGENT_WRITES: PermissionGroup[] = [
  'quotes', 'bookings', 'customers', 'messages', 'pickup', 'returns', 'vehicle_access', 'identity', 'agreements', 'insurance',
];

/** What each team role may do (CONTRACT.md "Roles and permissions"). */
export const ROLE_PERMISSIONS: Record<TeamRole, readonly Permission[]> = {
  owner: ALL_PERMISSIONS,
  admin: ALL_PERMISSIONS,
  manager: [...reads(PERMISSION_GROUPS), ...writes(MANAGER_WRITES)],
  agent: [...reads(PERMISSION_GROUPS.filter((g) => g !== 'reports')), ...writes(AGENT_WRITES)],
  viewer: reads(PERMISSION_GROUPS),
};

export function isPermission(value: string): value is Permission {
  return (ALL_PERMISSIONS as readonly string[]).includes(value);
}

/** Who is calling: resolved from the API key by src/domain/access/api-keys.ts. */
export interface Principal {
  businessId: string;
  livemode: boolean;
  keyId: string;
  keyKind: 'secret' | 'publishable';
  memberId: string | null;
  /** `all` for an unrestricted secret key. */
  permissions: ReadonlySet<Permission> | 'all';
}

/**
 * The one permission check. Publishable keys may only call the operations that declare
 * themselves public (CONTRACT.md's allow list); everything else needs a secret key.
 */
export function authorize(principal: Principal, permission: Permission, options: { publishable?: boolean } = {}): void {
  if (principal.keyKind === 'publishable') {
    if (options.publishable) return;
    throw secretKeyRequired();
  }
  if (principal.permissions === 'all' || principal.permissions.has(permission)) return;
  throw new DomainError('authorization_error', 'permission_denied', `This key lacks the permission '${permission}'.`);
}

/**
 * The check of every sandbox simulation (/v1/test/*, CONTRACT.md "Environments and keys"):
 * only a test secret key. A live key is 403 `sandbox_only`, a publishable test key 403
 * `secret_key_required`; then the operation's permission, if it names one.
 */
export function authorizeSandbox(principal: Principal, permission?: Permission): void {
  if (principal.livemode) {
    throw new DomainError('authorization_error', 'sandbox_only', 'Sandbox simulations take only a test secret key (svc_test_sk_...); live keys never reach test data.');
  }
  if (principal.keyKind === 'publishable') throw secretKeyRequired();
  if (permission) authorize(principal, permission);
}

function secretKeyRequired(): DomainError {
  return new DomainError('authorization_error', 'secret_key_required', 'This operation needs a secret key (svc_..._sk_...); publishable keys may only read the fleet, availability and quotes.');
}

/**
 * When the operator names separate sandbox and production hosts, a key used on the other
 * environment's host is refused (CONTRACT.md "Environments and keys").
 */
export function assertKeyEnvironment(principal: Principal, hostEnvironment: 'live' | 'test' | null): void {
  if (hostEnvironment === null || hostEnvironment === (principal.livemode ? 'live' : 'test')) return;
  throw new DomainError(
    'authentication_error',
    'api_key_environment_mismatch',
    `This host serves the ${hostEnvironment === 'live' ? 'production' : 'sandbox'} environment; use a svc_${hostEnvironment}_ key here.`,
  );
}
