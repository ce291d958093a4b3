import type { ProcessorCall } from '../../generated/prisma/client.ts';
import type { ProcessorCallKind } from '../../generated/prisma/enums.ts';
import { captureRecovery } from '../deposits/capture-deposit.ts';
import { releaseRecovery } from '../deposits/release-deposit.ts';
import { collectionRecovery } from '../charges/collect-charge.ts';
import { extensionRecovery } from '../bookings/extend-booking.ts';
import { DomainError } from '../shared/errors.ts';
import { latePaymentRecovery } from './processor-events.ts';
import { originOfCall, settledHere, type CallRecovery, type MoneyContext } from './processor-calls.ts';
import { refundRecovery } from './refund-payment.ts';
import { paymentRetryRecovery } from './retry-payment.ts';

/** Each kind's settlements, the ones its request runs (beside its use case). */
const RECOVERIES: Record<ProcessorCallKind, CallRecovery> = {
  refund: refundRecovery,
  deposit_capture: captureRecovery,
  deposit_release: releaseRecovery,
  charge_collection: collectionRecovery,
  extension: extensionRecovery,
  payment_retry: paymentRetryRecovery,
  late_payment_refund: latePaymentRecovery,
};

/** A sweep holds a call this long while it asks the processor; doubled at each attempt, up to an hour, so a call the processor keeps failing is not asked about in a loop. */
const CLAIM_MS = 60_000;
const MAX_CLAIM_MS = 3_600_000;
/** Calls one sweep of one tenant takes on. */
const BATCH = 20;

/**
 * Calls a sweep should settle: made longer than `staleAfterMs` ago (their request's process
 * has died: a live one answers well within that) and not held by another sweep.
 */
export const lostCalls = (now: Date, staleAfterMs: number) => ({
  createdAt: { lt: new Date(now.getTime() - staleAfterMs) },
  OR: [{ claimedUntil: null }, { claimedUntil: { lt: now } }],
});

/** What a sweep did with one call: settled it, found it settled or claimed by another, left it undecided, or failed (`error`: why). */
export interface SweptCall {
  idempotencyKey: string;
  kind: ProcessorCallKind;
  outcome: 'settled' | 'already_settled' | 'taken' | 'pending' | 'failed';
  error?: string;
}

/**
 * Settle the tenant's processor calls whose requests died before settling them (the money
 * sweep). Each call is claimed first (a compare-and-set, so any number of processes may sweep
 * side by side), then the processor is asked what became of it, under its idempotency key:
 * - carried out: settled as its request would have settled the processor's success;
 * - refused: settled as its request would have settled the refusal;
 * - never received: a step owed whatever happens (a refund, a capture, a release) is made now
 *   under the same key, then settled from the answer; a new charge of the customer's card
 *   (a collection, an extension, a payment retry) is put back as unanswered, and its
 *   requester's retry reaches the processor under the same key;
 * - undecided, or the processor unreachable: left to a later sweep.
 * `now` is real time; the settlements run on the tenant's clock (`m.now`).
 */
export async function sweepProcessorCalls(m: MoneyContext, now: Date, staleAfterMs: number): Promise<SweptCall[]> {
  const due = await m.db.processorCall.findMany({ where: lostCalls(now, staleAfterMs), orderBy: { createdAt: 'asc' }, take: BATCH });
  const swept: SweptCall[] = [];
  for (const call of due) {
    const { id: idempotencyKey, kind } = call;
    try {
      swept.push({ idempotencyKey, kind, outcome: await settleLostCall(m, call, now) });
    } catch (err) {
      // Unreachable processor, or a settlement the records no longer allow: the claim runs out and a later sweep asks again.
      swept.push({ idempotencyKey, kind, outcome: 'failed', error: err instanceof Error ? err.message : String(err) });
    }
  }
  return swept;
}

async function settleLostCall(m: MoneyContext, call: ProcessorCall, now: Date): Promise<SweptCall['outcome']> {
  const claimMs = Math.min(MAX_CLAIM_MS, CLAIM_MS * 2 ** call.sweepAttempts);
  const claimed = await m.db.processorCall.updateMany({
    where: { id: call.id, sweepAttempts: call.sweepAttempts, OR: [{ claimedUntil: null }, { claimedUntil: { lt: now } }] },
    data: { claimedUntil: new Date(now.getTime() + claimMs), sweepAttempts: { increment: 1 } },
  });
  if (claimed.count !== 1) return 'taken';
  const recovery = RECOVERIES[call.kind];
  const origin = originOfCall(call);
  const settled = async (settlement: Promise<unknown>) => ((await settledHere(settlement)) ? 'settled' : 'already_settled');
  const outcome = await m.processor.lookUp(recovery.lostCall(call));
  switch (outcome.status) {
    case 'succeeded':
      return settled(recovery.succeeded(m, origin, call, outcome.id));
    case 'refused':
      return settled(recovery.refused(m, origin, call, { code: outcome.code, message: outcome.message }));
    case 'pending':
      return 'pending';
    case 'absent': {
      if ('unanswered' in recovery.whenAbsent) return settled(recovery.whenAbsent.unanswered(m, origin, call));
      let answer: { id: string };
      try {
        answer = await recovery.whenAbsent.resume(m, call);
      } catch (err) {
        if (err instanceof DomainError && err.type === 'payment_error') return settled(recovery.refused(m, origin, call, { code: err.code, message: err.message }));
        throw err;
      }
      return settled(recovery.succeeded(m, origin, call, answer.id));
    }
  }
}
