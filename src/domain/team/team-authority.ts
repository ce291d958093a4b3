import type { TeamRole } from '../../generated/prisma/enums.ts';
import type { Permission } from '../access/permissions.ts';
import type { DomainContext } from '../shared/context.ts';
import { TeamErrors } from './team.errors.ts';
import { effectivePermissions } from './team.fields.ts';

/**
 * Whether the caller stands as an owner: a key bound to an owner member, or an unrestricted
 * key of the business (the admin tool's keys, which no member's rule can outrank). A key
 * restricted to a permission list is not an owner.
 */
export async function callerIsOwner(ctx: DomainContext): Promise<boolean> {
  const { memberId, permissions } = ctx.principal;
  if (!memberId) return permissions === 'all';
  const member = await ctx.db.teamMember.findUnique({ where: { id: memberId }, select: { role: true } });
  return member?.role === 'owner';
}

/** A member cannot grant more than it has: refused with the permissions the caller lacks. */
export function assertGrantable(ctx: DomainContext, wanted: { role: TeamRole; permissions: readonly string[] }): void {
  const held = ctx.principal.permissions;
  if (held === 'all') return;
  const missing = effectivePermissions(wanted).filter((p: Permission) => !held.has(p));
  if (missing.length) throw TeamErrors.permissionNotGrantable(missing);
}

/** Appointing, demoting or removing an owner takes an owner. */
export async function assertOwnerAuthority(ctx: DomainContext, action: 'appoint' | 'demote' | 'remove'): Promise<void> {
  if (!(await callerIsOwner(ctx))) throw TeamErrors.ownerRequired(action);
}

/** Email addresses are compared and stored in lower case. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();
