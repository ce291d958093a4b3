import { z } from 'zod';
import { originOf, recordEvent } from '../events/event.service.ts';
import { found } from '../shared/found.ts';
import { defineOperation } from '../shared/operation.ts';
import type { Db } from '../shared/context.ts';
import { memberId } from './get-team-member.ts';
import { assertGrantable, assertOwnerAuthority } from './team-authority.ts';
import { TeamErrors } from './team.errors.ts';
import { presentTeamMember } from './team.fields.ts';
import { extraPermissions, teamRole } from './team-input.ts';

/**
 * The owners as they stand once every other change to them has committed: the owners' rows
 * are locked first, so two requests that each take away one of two owners cannot both pass.
 */
export async function lockedOwnerCount(tx: Db): Promise<number> {
  await tx.teamMember.updateMany({ where: { role: 'owner' }, data: { updatedAt: new Date() } });
  return tx.teamMember.count({ where: { role: 'owner' } });
}

export const updateTeamMember = defineOperation({
  name: 'updateTeamMember',
  summary: 'Update a team member',
  description:
    "Changes a member's role or extra permissions (team_member.updated); only the fields sent change, and `permissions: null` clears the extra ones. The member's keys act with the new permissions at once (within 5 seconds in other API processes). A member cannot grant more than it has; only an owner may appoint or demote an owner; the last owner cannot be demoted.",
  access: { permission: 'team:write' },
  args: z.object({
    id: memberId,
    input: z
      .object({
        role: teamRole.nullish().meta({ description: 'The new role.' }),
        permissions: extraPermissions.nullish(),
      })
      .meta({ id: 'UpdateTeamMemberInput' }),
  }),
  errors: [TeamErrors.permissionNotGrantable, TeamErrors.ownerRequired, TeamErrors.lastOwner],
  example: { id: 'mem_01jd3m4k5n6p7q8r9s0t1v2w3x', input: { role: 'manager' } },
  async run(ctx, args, { query }) {
    const member = await found(ctx.db.teamMember.findUnique({ where: { id: args.id } }), 'team member', args.id);
    const role = args.input.role ?? member.role;
    const permissions = args.input.permissions === undefined ? member.permissions : [...new Set(args.input.permissions ?? [])];
    assertGrantable(ctx, { role, permissions });
    const demoting = member.role === 'owner' && role !== 'owner';
    if (demoting) await assertOwnerAuthority(ctx, 'demote');
    if (role === 'owner' && member.role !== 'owner') await assertOwnerAuthority(ctx, 'appoint');
    const origin = originOf(ctx);
    await ctx.db.$transaction(async (tx) => {
      if (demoting && (await lockedOwnerCount(tx)) <= 1) throw TeamErrors.lastOwner('demote');
      const updated = await tx.teamMember.update({ where: { id: member.id }, data: { role, permissions } });
      await recordEvent(tx, origin, { type: 'team_member.updated', object: presentTeamMember(updated, ctx.tenant.livemode) });
    });
    ctx.onAccessChanged();
    return ctx.db.teamMember.findUniqueOrThrow({ ...query, where: { id: member.id } });
  },
});
