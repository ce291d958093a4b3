import type { RestRoute } from '../route.ts';

/** The team: members (role, permissions, removal) and invitations. Accepting an invitation is its link's own step (src/http/edge/use-invitation-acceptance.ts). */
export const teamRoutes: RestRoute[] = [
  { method: 'GET', path: '/v1/team', field: 'Query.teamMembers', stage: 'later_scope' },
  { method: 'GET', path: '/v1/team/invitations', field: 'Query.teamInvitations', stage: 'later_scope' },
  { method: 'POST', path: '/v1/team/invitations', status: 201, field: 'Mutation.inviteTeamMember', args: { input: 'body' }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/team/invitations/{invitation_id}', field: 'Query.teamInvitation', args: { id: 'path.invitation_id' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/team/invitations/{invitation_id}/revoke', field: 'Mutation.revokeTeamInvitation', args: { id: 'path.invitation_id' }, answerExample: { state: 'revoked', next_states: [] }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/team/{member_id}', field: 'Query.teamMember', args: { id: 'path.member_id' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/team/{member_id}', field: 'Mutation.updateTeamMember', args: { id: 'path.member_id', input: 'body' }, stage: 'later_scope' },
  { method: 'DELETE', path: '/v1/team/{member_id}', field: 'Mutation.removeTeamMember', args: { id: 'path.member_id' }, stage: 'later_scope' },
];
