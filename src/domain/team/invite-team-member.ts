import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { recordEvent, originOf } from '../events/event.service.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import { newId } from '../shared/ids.ts';
import { runAction } from '../shared/lifecycle.ts';
import { defineOperation } from '../shared/operation.ts';
import { sendInvitationEmail } from './invitation-email.ts';
import { invitationLifecycle } from './invitation-state.ts';
import { assertGrantable, assertOwnerAuthority } from './team-authority.ts';
import { TeamErrors } from './team.errors.ts';
import { presentInvitation } from './team.fields.ts';
import { extraPermissions, memberEmail, teamRole } from './team-input.ts';

/** How long an invitation's link may be used (the contract: 7 days). */
export const INVITATION_DAYS = 7;

export const hashInvitationToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** The path of an invitation's accept link, before its token. */
export const invitationAcceptPath = (invitationId: string) => `/v1/team/invitations/${invitationId}/accept`;

export const inviteTeamMember = defineOperation({
  name: 'inviteTeamMember',
  summary: 'Invite a team member',
  description:
    "Invites someone by email with a role (default viewer) and optionally extra permissions (invitation.created), and emails them the link. The answer alone carries `accept_url`: a one-time link, valid 7 days (by the sandbox clock for a test key), that the invitee POSTs to with their `name` (no API key needed) to become a member; the email carries it too. Inviting an email with an invitation still pending replaces it; an email that is already a member is 409. A member cannot grant more than it has, and only an owner may invite an owner.",
  access: { permission: 'team:write' },
  args: z.object({
    input: z
      .object({
        email: memberEmail.meta({ description: 'Where the invitation goes; the member is known by it.' }),
        role: teamRole.nullish().meta({ description: 'owner, admin, manager, agent or viewer (default viewer).' }),
        permissions: extraPermissions.nullish(),
      })
      .meta({ id: 'InviteTeamMemberInput' }),
  }),
  errors: [TeamErrors.memberExists, TeamErrors.permissionNotGrantable, TeamErrors.ownerRequired],
  example: { input: { email: 'sam@example.com', role: 'agent' } },
  async run(ctx, { input }, { query }) {
    const role = input.role ?? 'viewer';
    const permissions = [...new Set(input.permissions ?? [])];
    assertGrantable(ctx, { role, permissions });
    if (role === 'owner') await assertOwnerAuthority(ctx, 'appoint');
    if (await ctx.db.teamMember.findFirst({ where: { email: input.email }, select: { id: true } })) throw TeamErrors.memberExists(input.email);
    const token = randomBytes(32).toString('base64url');
    // The inviting key's clock: an invitation made in the sandbox expires by the sandbox clock (invitation-clock.ts).
    const now = ctx.now();
    const origin = originOf(ctx);
    const created = await ctx.db.$transaction(async (tx) => {
      const pending = await tx.invitation.findMany({ where: { email: input.email, state: 'pending' } });
      for (const previous of pending) await runAction(tx, origin, invitationLifecycle, previous, 'revoke', { revokedAt: now });
      const invitation = await tx.invitation.create({
        data: {
          id: newId('invitation'),
          businessId: ctx.tenant.businessId,
          email: input.email,
          role,
          permissions,
          state: 'pending',
          tokenHash: hashInvitationToken(token),
          expiresAt: new Date(now.getTime() + INVITATION_DAYS * 86_400_000),
          originLivemode: ctx.tenant.livemode,
          invitedByMemberId: ctx.principal.memberId,
        },
      });
      await recordEvent(tx, origin, { type: 'invitation.created', object: presentInvitation(invitation, now) });
      return invitation;
    });
    const acceptUrl = `${ctx.publicUrl()}${invitationAcceptPath(created.id)}?token=${token}`;
    await sendInvitationEmail(ctx, created, acceptUrl);
    const row = await ctx.db.invitation.findUnique({ ...query, where: { id: created.id } });
    if (!row) throw CommonErrors.resourceMissing('invitation', created.id);
    return { ...row, acceptUrl };
  },
});
