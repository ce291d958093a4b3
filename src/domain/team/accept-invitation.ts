import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { TeamMember } from '../../generated/prisma/client.ts';
import type { OwnerLookup } from '../../db/owner-lookup.ts';
import type { TenantDbFactory } from '../../db/tenant-db.ts';
import { recordEvent, type EventOrigin } from '../events/event.service.ts';
import { newId } from '../shared/ids.ts';
import { runAction } from '../shared/lifecycle.ts';
import { parseInput } from '../shared/validation.ts';
import { invitationLifecycle, invitationMachine } from './invitation-state.ts';
import { hashInvitationToken } from './invite-team-member.ts';
import { TeamErrors } from './team.errors.ts';
import { presentTeamMember } from './team.fields.ts';
import { isUniqueViolation } from '../../db/database-errors.ts';

export interface InvitationAcceptanceDeps {
  owners: OwnerLookup;
  tenantDb: TenantDbFactory;
}

/** What the invitee sends to the accept link. */
export const acceptInvitationBody = z.object({ name: z.string().trim().min(1).max(200).meta({ description: 'How the team will know the new member.' }) }).strict();

function tokenMatches(token: string | null, tokenHash: string | null): boolean {
  if (!token || !tokenHash) return false;
  const given = Buffer.from(hashInvitationToken(token), 'hex');
  const expected = Buffer.from(tokenHash, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The invitee's use of the accept link: the token is the authorization (an unknown
 * invitation or an altered token answer alike). A pending invitation within its 7 days becomes a
 * member, once (its 7 days counted on the clock of the environment that invited): the invitation moves to accepted by compare-and-set in the transaction that
 * makes the member and records team_member.created, so a second use (even a concurrent one)
 * is refused. An invitation used after its expiry is marked expired and refused.
 */
export async function acceptInvitation(
  deps: InvitationAcceptanceDeps,
  request: { invitationId: string; token: string | null; body: unknown; requestId: string; now: Date },
): Promise<{ member: TeamMember; livemode: boolean }> {
  const stored = await deps.owners.resolveOwner('invitation', request.invitationId);
  if (!stored || !tokenMatches(request.token, stored.tokenHash)) throw TeamErrors.invitationTokenInvalid();
  const { name } = parseInput(acceptInvitationBody, request.body);
  // The clock of the environment that invited: a sandbox invitation expires by the sandbox clock.
  const now = new Date(request.now.getTime() + stored.clockOffsetSeconds * 1000);
  const db = deps.tenantDb({ businessId: stored.businessId, livemode: false });
  const invitation = await db.invitation.findUniqueOrThrow({ where: { id: request.invitationId } });
  const origin: EventOrigin = { businessId: invitation.businessId, livemode: invitation.originLivemode, requestId: request.requestId, idempotencyKey: null };
  const expired = invitation.state === 'expired' || (invitation.state === 'pending' && invitation.expiresAt !== null && invitation.expiresAt <= now);
  if (expired) {
    if (invitation.state === 'pending') await db.$transaction((tx) => runAction(tx, origin, invitationLifecycle, invitation, 'expire'));
    throw TeamErrors.invitationExpired((invitation.expiresAt ?? now).toISOString());
  }
  invitationMachine.check(invitation, 'accept');
  const existing = await db.teamMember.findFirst({ where: { email: invitation.email }, select: { id: true } });
  if (existing) throw TeamErrors.memberExists(invitation.email);
  const environmentDb = deps.tenantDb({ businessId: invitation.businessId, livemode: invitation.originLivemode });
  const member = await environmentDb.$transaction(async (tx) => {
    const created = await tx.teamMember.create({
      data: { id: newId('teamMember'), businessId: invitation.businessId, email: invitation.email, name, role: invitation.role, permissions: invitation.permissions },
    });
    await runAction(tx, origin, invitationLifecycle, invitation, 'accept', { acceptedAt: now, memberId: created.id });
    await recordEvent(tx, origin, { type: 'team_member.created', object: presentTeamMember(created, invitation.originLivemode) });
    return created;
  }).catch((err: unknown) => {
    // Someone with this email joined meanwhile (another invitation, accepted at the same moment).
    throw isUniqueViolation(err) ? TeamErrors.memberExists(invitation.email) : err;
  });
  return { member, livemode: invitation.originLivemode };
}
