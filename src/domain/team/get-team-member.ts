import { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.ts';
import { found } from '../shared/found.ts';
import { defineOperation } from '../shared/operation.ts';
import { createdFilters, createdWhere, pageQuery, toPage } from '../shared/pagination.ts';
import { id } from '../shared/validation.ts';
import { memberEmail, teamRole } from './team-input.ts';

export const memberId = id('The team member (mem_...).');

export const listTeamMembers = defineOperation({
  name: 'teamMembers',
  summary: 'List team members',
  description: "The business's team, newest first: each member's email, name, role and effective permissions (the role's plus any granted). Filter by role or email.",
  access: { permission: 'team:read' },
  args: z.object({
    role: teamRole.nullish().meta({ description: 'Only members with this role.' }),
    email: memberEmail.nullish().meta({ description: 'Only the member with this email.' }),
    ...createdFilters,
  }),
  errors: [],
  example: { role: 'admin', email: 'sam@example.com' },
  async run(ctx, filter, { page, query }) {
    const p = pageQuery(page ?? {});
    const where: Prisma.TeamMemberWhereInput = {
      ...(filter.role ? { role: filter.role } : {}),
      ...(filter.email ? { email: filter.email } : {}),
      ...createdWhere(filter),
      ...p.where,
    };
    return toPage(await ctx.db.teamMember.findMany({ ...query, where, orderBy: p.orderBy, take: p.take }), p);
  },
});

export const getTeamMember = defineOperation({
  name: 'teamMember',
  summary: 'Retrieve a team member',
  description: "A member of the team: email, name, role and effective permissions (what the member's keys may do).",
  access: { permission: 'team:read' },
  args: z.object({ id: memberId }),
  errors: [],
  example: { id: 'mem_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  run: (ctx, args, { query }) => found(ctx.db.teamMember.findUnique({ ...query, where: { id: args.id } }), 'team member', args.id),
});
