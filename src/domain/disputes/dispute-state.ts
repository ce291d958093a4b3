import type { Dispute } from '../../generated/prisma/client.ts';
import type { DisputeState } from '../../generated/prisma/enums.ts';
import type { Lifecycle } from '../shared/lifecycle.ts';
import { defineMachine } from '../shared/state-machine.ts';
import { presentDispute } from './dispute.fields.ts';

/**
 * A customer contesting one charge (the contract's "Money"): open → under_review → approved |
 * closed (open → approved | closed too). Approved: the claim is accepted; closed: the charge
 * stands again. Its events carry the dispute; the booking is the charge's.
 */
export const disputeMachine = defineMachine({
  object: 'dispute',
  states: ['open', 'under_review', 'approved', 'closed'] as const satisfies readonly DisputeState[],
  initial: ['open'],
  terminal: ['approved', 'closed'],
  actions: {
    review: { from: ['open'], to: 'under_review', event: 'dispute.updated', verb: 'start reviewing' },
    // Evidence is what a review weighs: adding it puts the dispute under review.
    add_evidence: { from: ['open', 'under_review'], to: 'under_review', event: 'dispute.updated', verb: 'add evidence to' },
    approve: { from: ['open', 'under_review'], to: 'approved', event: 'dispute.approved' },
    close: { from: ['open', 'under_review'], to: 'closed', event: 'dispute.closed' },
  },
});

export type DisputeAction = keyof typeof disputeMachine.actions;

/** States in which a dispute locks its charge. */
export const OPEN_DISPUTE_STATES: readonly DisputeState[] = ['open', 'under_review'];

/** A dispute row, with the booking of its charge (for the events' booking). */
export type DisputeRecord = Dispute & { bookingId?: string | null };

export const disputeLifecycle: Lifecycle<DisputeRecord, { state: DisputeState }, DisputeAction> = {
  machine: disputeMachine,
  records: (db) => db.dispute,
  facts: (dispute) => dispute,
  present: presentDispute,
  bookingId: (dispute) => dispute.bookingId ?? null,
};
