import { errorCatalogue } from '../shared/errors.ts';

/** The team's rules: who may appoint, demote or remove whom, and invitations. */
export const TeamErrors = errorCatalogue('team', {
  ownerRequired: {
    type: 'authorization_error',
    code: 'owner_required',
    description: 'Only an owner (or an unrestricted key of the business) may appoint, demote or remove an owner.',
    build: (action: string) => ({ message: `Only an owner may ${action} an owner.` }),
  },
  lastOwner: {
    type: 'conflict',
    code: 'last_owner',
    description: 'The business would be left without an owner: make another member owner first.',
    build: (action: 'remove' | 'demote') => ({ message: `The last owner cannot be ${action === 'remove' ? 'removed' : 'demoted'}; make another member owner first.` }),
  },
  permissionNotGrantable: {
    type: 'authorization_error',
    code: 'permission_not_grantable',
    description: 'A member cannot grant more than it has: the role or permissions asked for include some the caller lacks; `permissions` lists them.',
    details: ['permissions'],
    build: (missing: readonly string[]) => ({
      message: `You cannot grant permissions you do not have: ${missing.join(', ')}.`,
      details: { permissions: missing },
    }),
  },
  memberExists: {
    type: 'conflict',
    code: 'team_member_exists',
    description: 'The email already belongs to a member of the team.',
    build: (email: string) => ({ message: `${email} is already a member of the team.`, param: 'email' }),
  },
  invitationTokenInvalid: {
    type: 'authorization_error',
    code: 'invitation_token_invalid',
    description: "The accept link's token is missing, altered or not this invitation's. Ask for a new invitation.",
    build: () => ({ message: 'This invitation link is not valid. Ask the business for a new invitation.' }),
  },
  invitationExpired: {
    type: 'conflict',
    code: 'invitation_expired',
    description: 'The invitation was not accepted within 7 days. Ask the business for a new invitation.',
    build: (expiredAt: string) => ({ message: `This invitation expired at ${expiredAt}. Ask the business for a new invitation.` }),
  },
});
