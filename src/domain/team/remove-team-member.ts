import { z } from 'zod';
import { originOf, recordEvent } from '../events/event.service.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import { found } from '../shared/found.ts';
import { defineOperation } from '../shared/operation.ts';
import { memberId } from './get-team-member.ts';
import { assertOwnerAuthority } from './team-authority.ts';
import { TeamErrors } from './team.errors.ts';
import { presentTeamMember } from './team.fields.ts';
import { lockedOwnerCount } from './update-team-member.ts';

export const removeTeamMember = defineOperation({
  name: 'removeTeamMember',
  summary: 'Remove a team member',
  description:
    "Removes the member from the team (team_member.removed) and every API key bound to it, in both environments: the keys stop working at once (within 5 seconds in other API processes). Only an owner may remove an owner; the last owner cannot be removed.  Answers the member as it was.",
  access: { permission: 'team:write' },
  args: z.object({ id: memberId }),
  errors: [TeamErrors.ownerRequired, TeamErrors.lastOwner],
  example: { id: 'mem_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  async run(ctx, args) {
    const member = await found(ctx.db.teamMember.findUnique({ where: { id: args.id } }), 'team member', args.id);
    if (member.role === 'owner') await assertOwnerAuthority(ctx, 'remove');
    const origin = originOf(ctx);
    await ctx.db.$transaction(async (tx) => {
      if (member.role === 'owner' && (await lockedOwnerCount(tx)) <= 1) throw TeamErrors.lastOwner('remove');
      // The member's keys (in both environments) go with it: the database deletes them with the row.
      const { count } = await tx.teamMember.deleteMany({ where: { id: member.id } });
      if (count !== 1) throw CommonErrors.resourceMissing('team member', member.id);
      await recordEvent(tx, origin, { type: 'team_member.removed', object: presentTeamMember(member, ctx.tenant.livemode) });
    });
    ctx.onAccessChanged();
    return member;
  },
});
