import type { ProcessorCall } from '../../generated/prisma/client.ts';
import type { ProcessorCallKind } from '../../generated/prisma/enums.ts';
import type { EventOrigin } from '../events/event.service.ts';
import type { Db, DomainContext } from '../shared/context.ts';
import type { PaymentFailure } from './payment-outcomes.ts';
import type { LostCall } from './processor.ts';

/*
 * Money that moves in three steps (reserve, ask the processor, settle) leaves a processor
 * call on record between the first and the last: written in the reservation's transaction,
 * gone in the settlement's. Whoever removes it settles; anyone else finds it gone and stops.
 * A call still on record long after its request began was left by a process that died: the
 * money sweep (sweep-processor-calls.ts) settles it from what the processor says.
 */

/** What a step that moves money needs: the tenant's database, its processor and its clock (a DomainContext has them all). */
export type MoneyContext = Pick<DomainContext, 'db' | 'tenant' | 'processor' | 'now'>;

export interface ProcessorCallInput {
  kind: ProcessorCallKind;
  bookingId: string;
  subjectId: string;
  idempotencyKey: string;
  reference: string | null;
  amountCents: number;
  currency: string;
  details?: Record<string, string | number | null>;
}

/** Record, in the reservation's transaction, the processor call its request is about to make. */
export async function recordProcessorCall(tx: Db, origin: EventOrigin, call: ProcessorCallInput): Promise<void> {
  const { idempotencyKey, details, ...rest } = call;
  // Written, not read back (createMany returns no row): the call is no object of the API, and no audit record names it.
  await tx.processorCall.createMany({
    data: { id: idempotencyKey, ...rest, details: details ?? {}, businessId: origin.businessId, livemode: origin.livemode, requestId: origin.requestId, requestIdempotencyKey: origin.idempotencyKey },
  });
}

/** Another settled the call first (the request, or a sweep): this settlement's transaction is rolled back. */
export class CallAlreadySettled extends Error {
  override name = 'CallAlreadySettled';
}

/**
 * The first write of a settlement's transaction: it takes the call off the record, or throws
 * `CallAlreadySettled` when it is gone. The row's lock holds a concurrent settlement back
 * until this one commits, then it finds nothing.
 */
export async function takeProcessorCall(tx: Db, idempotencyKey: string): Promise<void> {
  const { count } = await tx.processorCall.deleteMany({ where: { id: idempotencyKey } });
  if (count !== 1) throw new CallAlreadySettled(`the processor call ${idempotencyKey} was settled by another`);
}

/** Run a settlement: true if it settled the call, false if another had already. */
export async function settledHere(settlement: Promise<unknown>): Promise<boolean> {
  try {
    await settlement;
    return true;
  } catch (err) {
    if (err instanceof CallAlreadySettled) return false;
    throw err;
  }
}

/**
 * How one kind of call is settled when its request's process died before settling it: the
 * same settlements the request would have run, chosen by the processor's state.
 */
export interface CallRecovery {
  /** The call as it was made, for the processor's look-up. */
  lostCall(call: ProcessorCall): LostCall;
  /** The processor carried it out (`processorId` is what the call answered). */
  succeeded(m: MoneyContext, origin: EventOrigin, call: ProcessorCall, processorId: string): Promise<unknown>;
  /** The processor received it and refused it. */
  refused(m: MoneyContext, origin: EventOrigin, call: ProcessorCall, failure: PaymentFailure): Promise<unknown>;
  /**
   * Never received: either the call is made now, under its key (`resume`: a step owed
   * whatever happens, such as a refund or a capture), or the reservation is put back where
   * an unanswered call leaves it (`unanswered`: a new charge of the customer's card is not
   * made without its requester; their retry reaches the processor under the same key).
   */
  whenAbsent: { resume(m: MoneyContext, call: ProcessorCall): Promise<{ id: string }> } | { unanswered(m: MoneyContext, origin: EventOrigin, call: ProcessorCall): Promise<unknown> };
}

/** The origin of a sweep's settlement: the request that made the call, as its own settlement would have named it. */
export function originOfCall(call: ProcessorCall): EventOrigin {
  return { businessId: call.businessId, livemode: call.livemode, requestId: call.requestId, idempotencyKey: call.requestIdempotencyKey };
}
