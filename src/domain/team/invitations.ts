import { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.ts';
import { InvitationState } from '../../generated/prisma/enums.ts';
import { originOf } from '../events/event.service.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import { found } from '../shared/found.ts';
import { runAction } from '../shared/lifecycle.ts';
import { defineOperation } from '../shared/operation.ts';
import { createdFilters, createdWhere, pageQuery, toPage } from '../shared/pagination.ts';
import { id } from '../shared/validation.ts';
import { invitationClocks, invitationNow, type InvitationClocks } from './invitation-clock.ts';
import { invitationLifecycle } from './invitation-state.ts';
import { memberEmail } from './team-input.ts';

const invitationId = id('The invitation (inv_...).');

/** Which stored rows are in a state as clients see it (a pending one past its expiry, by its environment's clock, is expired). */
function stateWhere(state: InvitationState, clocks: InvitationClocks): Prisma.InvitationWhereInput {
  const environments = [{ originLivemode: true, now: clocks.live }, { originLivemode: false, now: clocks.test }];
  if (state === 'pending') return { state: 'pending', OR: [{ expiresAt: null }, ...environments.map(({ originLivemode, now }) => ({ originLivemode, expiresAt: { gt: now } }))] };
  if (state === 'expired') return { OR: [{ state: 'expired' }, ...environments.map(({ originLivemode, now }) => ({ state: 'pending' as const, originLivemode, expiresAt: { lte: now } }))] };
  return { state };
}

export const listInvitations = defineOperation({
  name: 'teamInvitations',
  summary: 'List invitations',
  description: 'Invitations to the team, newest first, filtered by state or email. Their accept links are never shown again.',
  access: { permission: 'team:read' },
  args: z.object({
    state: z.enum(Object.values(InvitationState) as [InvitationState, ...InvitationState[]]).meta({ id: 'InvitationState' }).nullish().meta({ description: 'Only invitations in this state.' }),
    email: memberEmail.nullish().meta({ description: 'Only invitations to this email.' }),
    ...createdFilters,
  }),
  errors: [],
  example: { state: 'pending', email: 'sam@example.com' },
  async run(ctx, filter, { page, query }) {
    const p = pageQuery(page ?? {});
    const where: Prisma.InvitationWhereInput = {
      AND: [filter.state ? stateWhere(filter.state, await invitationClocks(ctx)) : {}, filter.email ? { email: filter.email } : {}, createdWhere(filter), p.where],
    };
    return toPage(await ctx.db.invitation.findMany({ ...query, where, orderBy: p.orderBy, take: p.take }), p);
  },
});

export const getInvitation = defineOperation({
  name: 'teamInvitation',
  summary: 'Retrieve an invitation',
  description: 'An invitation: its email, role, state (pending, accepted, revoked, expired) and expiry; never its accept link.',
  access: { permission: 'team:read' },
  args: z.object({ id: invitationId }),
  errors: [],
  example: { id: 'inv_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  run: (ctx, args, { query }) => found(ctx.db.invitation.findUnique({ ...query, where: { id: args.id } }), 'invitation', args.id),
});

export const revokeInvitation = defineOperation({
  name: 'revokeTeamInvitation',
  summary: 'Revoke an invitation',
  description: 'Withdraws a pending invitation (invitation.revoked): its link no longer works. One accepted, revoked or expired is 409.',
  access: { permission: 'team:write' },
  args: z.object({ id: invitationId }),
  errors: [CommonErrors.invalidStateTransition],
  example: { id: 'inv_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  async run(ctx, args, { query }) {
    const invitation = await found(ctx.db.invitation.findUnique({ where: { id: args.id } }), 'invitation', args.id);
    const now = invitationNow(await invitationClocks(ctx), invitation);
    if (invitation.state === 'pending' && invitation.expiresAt && invitation.expiresAt <= now) {
      await ctx.db.$transaction((tx) => runAction(tx, originOf(ctx), invitationLifecycle, invitation, 'expire'));
      throw CommonErrors.invalidStateTransition('invitation', 'expired', "Cannot revoke an invitation in state 'expired'.");
    }
    await ctx.db.$transaction((tx) => runAction(tx, originOf(ctx), invitationLifecycle, invitation, 'revoke', { revokedAt: now }));
    return ctx.db.invitation.findUniqueOrThrow({ ...query, where: { id: args.id } });
  },
});
