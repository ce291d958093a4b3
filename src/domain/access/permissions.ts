import { CommonErrors } from '../shared/common.errors.ts';
import { AccessErrors } from './access.errors.ts';

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

/** What each team role may do (the contract, "Roles and permissions"). */
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

/** Who is calling: resolved from the API key by src/platform/api-keys.ts. */
export interface Principal {
  businessId: string;
  livemode: boolean;
  keyId: string;
  keyKind: 'secret' | 'publishable';
  memberId: string | null;
  /** `all` for an unrestricted secret key. */
  permissions: ReadonlySet<Permission> | 'all';
  /** An OAuth app's access token: the app, and its connection to the business (`keyId` is the connection's id). */
  app?: { id: string; name: string };
  /** How far this caller's clock runs ahead of real time: the business's sandbox clock for test keys, 0 for live ones. */
  clockOffsetMs: number;
  /**
   * A browser booking's caller (the embedded components): a publishable key sent with the
   * `client_secret` of one booking (X-Client-Secret or `?client_secret=`), checked by the edge.
   * It may read that booking and start its checkout, nothing else (`OperationAccess.browser`).
   */
  booking?: string;
}

/** What a browser (a publishable key) may do with bookings: create one, or act on the one its client secret names. */
export type BrowserBookingAccess = { create: true } | { ownBooking: 'id' | 'bookingId' };

/** Who may call an operation, declared once with it (src/domain/shared/operation.ts). */
export interface OperationAccess {
  /** The permission it needs; null when any key of the business may (none yet). */
  permission: Permission | null;
  /** Publishable keys may call it too (the contract's public allow list). */
  publishable?: boolean;
  /** A sandbox simulation (/v1/test/*): test secret keys only. */
  sandbox?: boolean;
  /**
   * The browser booking of the embedded components: `create` lets a publishable key create a
   * booking (the operation checks the vehicle is on the published website); `ownBooking`
   * names the argument holding the booking a publishable key with that booking's client
   * secret may act on.
   */
  browser?: BrowserBookingAccess;
}

/**
 * The one access check, run by the edge before any input is read (so a refused key never
 * sees a 422) and again when the operation runs. Sandbox simulations take only a test secret
 * key (a live key: `sandbox_only`); publishable keys only what declares itself public
 * (`secret_key_required`); then the operation's permission (`permission_denied`).
 */
export function assertAccess(principal: Principal, access: OperationAccess): void {
  if (access.sandbox && principal.livemode) throw AccessErrors.sandboxOnly();
  if (principal.keyKind === 'publishable') {
    if (access.sandbox) throw AccessErrors.secretKeyRequired();
    // A browser booking's caller: that one booking, nothing else.
    if (principal.booking !== undefined) {
      if (access.browser && 'ownBooking' in access.browser) return;
      throw AccessErrors.secretKeyRequired();
    }
    if (access.publishable || (access.browser && 'create' in access.browser)) return;
    throw AccessErrors.secretKeyRequired();
  }
  if (access.permission === null || principal.permissions === 'all' || principal.permissions.has(access.permission)) return;
  throw AccessErrors.permissionDenied(access.permission);
}

/**
 * When the operator names separate sandbox and production hosts, a key used on the other
 * environment's host is refused (the contract's "Environments and keys").
 */
export function assertKeyEnvironment(principal: Principal, hostEnvironment: 'live' | 'test' | null): void {
  if (hostEnvironment === null || hostEnvironment === (principal.livemode ? 'live' : 'test')) return;
  throw AccessErrors.environmentMismatch(hostEnvironment);
}

/**
 * The booking a browser booking's caller acts on must be the one its client secret names: any
 * other answers exactly like an unknown booking (404), so nothing leaks. Run with the parsed
 * arguments, whatever the transport.
 */
export function assertOwnBooking(principal: Principal, access: OperationAccess, args: Record<string, unknown>): void {
  if (principal.booking === undefined || !access.browser || !('ownBooking' in access.browser)) return;
  const param = access.browser.ownBooking;
  const asked = args[param];
  if (asked !== principal.booking) throw CommonErrors.resourceMissing('booking', String(asked));
}
