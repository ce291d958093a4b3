import type { Invitation, TeamMember } from '../../generated/prisma/client.ts';
import { ALL_PERMISSIONS, isPermission, ROLE_PERMISSIONS, type Permission } from '../access/permissions.ts';
import { present, type PublicFields } from '../shared/presenter.ts';

export const TEAM_MEMBER_FIELDS: PublicFields = {
  id: { kind: 'id' },
  email: { kind: 'string' },
  name: { kind: 'string', nullable: true },
  role: { kind: { enum: 'TeamRole' } },
  createdAt: { kind: 'datetime' },
};

export const INVITATION_FIELDS: PublicFields = {
  id: { kind: 'id' },
  email: { kind: 'string' },
  role: { kind: { enum: 'TeamRole' } },
  expiresAt: { kind: 'datetime', nullable: true, description: 'Seven days after the invitation; an invitation still pending then is expired.' },
  acceptedAt: { kind: 'datetime', nullable: true },
  memberId: { kind: 'id', nullable: true, description: 'The member the acceptance made (mem_...).' },
  createdAt: { kind: 'datetime' },
};

/**
 * What a member may do: its role's permissions, plus any extra ones granted to it, in the
 * order of the permission list. A member's keys act with exactly these.
 */
export function effectivePermissions(member: { role: TeamMember['role']; permissions: readonly string[] }): Permission[] {
  const granted = new Set<string>([...ROLE_PERMISSIONS[member.role], ...member.permissions.filter(isPermission)]);
  return ALL_PERMISSIONS.filter((p) => granted.has(p));
}

/** A member as REST answers and events show it (team members belong to both environments). */
export function presentTeamMember(row: TeamMember, livemode: boolean) {
  return present('team_member', TEAM_MEMBER_FIELDS, row, { livemode, permissions: effectivePermissions(row) });
}

/** An invitation pending past its expiry reads as expired before anyone writes it so. */
export function invitationState(row: Pick<Invitation, 'state' | 'expiresAt'>, now: Date): Invitation['state'] {
  return row.state === 'pending' && row.expiresAt !== null && row.expiresAt.getTime() <= now.getTime() ? 'expired' : row.state;
}

export function presentInvitation(row: Invitation, now: Date) {
  return present('invitation', INVITATION_FIELDS, row, { livemode: row.originLivemode, state: invitationState(row, now), permissions: row.permissions.filter(isPermission) });
}
