import type { Invitation } from '../../generated/prisma/client.ts';
import type { InvitationState } from '../../generated/prisma/enums.ts';
import type { Lifecycle } from '../shared/lifecycle.ts';
import { defineMachine } from '../shared/state-machine.ts';
import { presentInvitation } from './team.fields.ts';

/**
 * An invitation to the team: pending until its link is used once (accepted), it is revoked,
 * or seven days pass (expired). Only a pending one can become a member.
 */
export const invitationMachine = defineMachine({
  object: 'invitation',
  states: ['pending', 'accepted', 'revoked', 'expired'] as const satisfies readonly InvitationState[],
  initial: ['pending'],
  terminal: ['accepted', 'revoked', 'expired'],
  actions: {
    accept: { from: ['pending'], to: 'accepted' },
    revoke: { from: ['pending'], to: 'revoked', event: 'invitation.revoked' },
    expire: { from: ['pending'], to: 'expired' },
  },
});

export type InvitationAction = keyof typeof invitationMachine.actions;

export const invitationLifecycle: Lifecycle<Invitation, Invitation, InvitationAction> = {
  machine: invitationMachine,
  records: (db) => db.invitation,
  facts: (row) => row,
  present: (row) => presentInvitation(row, new Date()),
  bookingId: () => null,
};
