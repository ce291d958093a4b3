import { builder } from '../builder.ts';
import { getTeamMember, listTeamMembers } from '../domain/team/get-team-member.ts';
import { getInvitation, listInvitations, revokeInvitation } from '../domain/team/invitations.ts';
import { inviteTeamMember } from '../domain/team/invite-team-member.ts';
import { removeTeamMember } from '../domain/team/remove-team-member.ts';
import { INVITATION_FIELDS, TEAM_MEMBER_FIELDS, effectivePermissions, invitationState } from '../domain/team/team.fields.ts';
import { invitationMachine } from '../domain/team/invitation-state.ts';
import { invitationClocks, invitationNow } from '../domain/team/invitation-clock.ts';
import { updateTeamMember } from '../domain/team/update-team-member.ts';
import { enums } from './enums.ts';
import { exposePublicFields } from './fields.ts';
import { operationField } from './operation-field.ts';

export const TeamMember = builder.prismaObject('TeamMember', {
  description: "A member of the business's team (in both environments); keys bound to it act with its permissions.",
  fields: (t) => ({
    ...(exposePublicFields(t, TEAM_MEMBER_FIELDS, enums) as {}),
    livemode: t.boolean({ description: "The caller's environment (the team belongs to both).", resolve: (_m, _a, ctx) => ctx.domain.principal.livemode }),
    permissions: t.stringList({ description: "Effective permissions: the role's, plus any granted beyond it.", resolve: (m) => effectivePermissions(m) }),
  }),
});

export const Invitation = builder.prismaObject('Invitation', {
  description: 'An invitation to join the team, accepted once through its link within 7 days.',
  fields: (t) => ({
    ...(exposePublicFields(t, INVITATION_FIELDS, enums) as {}),
    livemode: t.boolean({ description: 'The environment of the key that invited.', resolve: (i) => i.originLivemode }),
    state: t.field({
      type: enums.InvitationState,
      description: "pending until accepted, revoked or 7 days old (expired), by the clock of the environment that invited (the sandbox clock for a test key's).",
      select: { originLivemode: true, state: true, expiresAt: true },
      resolve: async (i, _a, ctx) => invitationState(i, invitationNow(await invitationClocks(ctx.domain), i)),
    }),
    permissions: t.exposeStringList('permissions', { description: "Permissions granted beyond the role's." }),
    nextStates: t.field({
      type: [enums.InvitationState],
      description: 'States the invitation can move to now.',
      select: { originLivemode: true, state: true, expiresAt: true },
      resolve: async (i, _a, ctx) => invitationMachine.nextStates({ ...i, state: invitationState(i, invitationNow(await invitationClocks(ctx.domain), i)) }),
    }),
    acceptUrl: t.string({
      nullable: true,
      description: 'The one-time link the invitee POSTs to (with their `name`, no API key): in the answer that creates the invitation, and never again.',
      resolve: (i) => (i as { acceptUrl?: string }).acceptUrl ?? null,
    }),
  }),
});

const members = operationField(listTeamMembers);
const member = operationField(getTeamMember);
const invitations = operationField(listInvitations);
const invitation = operationField(getInvitation);
const memberMutations = [updateTeamMember, removeTeamMember].map((operation) => [operation.name, operationField(operation)] as const);
const invitationMutations = [inviteTeamMember, revokeInvitation].map((operation) => [operation.name, operationField(operation)] as const);

builder.queryFields((t) => ({
  teamMembers: members.connection(t, TeamMember),
  teamMember: member.prisma(t, 'TeamMember'),
  teamInvitations: invitations.connection(t, Invitation),
  teamInvitation: invitation.prisma(t, 'Invitation'),
}));

builder.mutationFields((t) => ({
  ...Object.fromEntries(memberMutations.map(([name, field]) => [name, field.prisma(t, 'TeamMember')])),
  ...Object.fromEntries(invitationMutations.map(([name, field]) => [name, field.prisma(t, 'Invitation')])),
}));
