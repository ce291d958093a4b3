import type { OwnerLookup } from '../../db/owner-lookup.ts';
import type { TenantDb, TenantDbFactory } from '../../db/tenant-db.ts';
import { isUniqueViolation } from '../../db/database-errors.ts';
import { bookingMachine } from '../bookings/booking-state.ts';
import type { EventOrigin } from '../events/event.service.ts';
import { recordPaymentFailure, recordPaymentSuccess, type PaymentFailure } from './payment-outcomes.ts';
import { paymentMachine } from './payment-state.ts';
import type { PaymentProcessor } from './processor.ts';
import { recordProcessorCall, settledHere, takeProcessorCall, type CallRecovery } from './processor-calls.ts';

/**
 * What a processor's event says about a rental's payment, in the domain's terms (the
 * adapter's webhook translates its own events into this). The sandbox's payment simulations
 * apply the same outcomes (recordPaymentSuccess, recordPaymentFailure).
 */
export interface ProcessorEventInput {
  /** The processor's event id: an event is applied once, however often it is delivered. */
  id: string;
  processor: string;
  /** The processor's own name of the event (payment_intent.succeeded). */
  type: string;
  /** The processor's payment the event is about (pi_...). */
  processorPaymentId: string;
  says: { outcome: 'payment_succeeded' } | { outcome: 'payment_failed'; failure: PaymentFailure } | { outcome: 'nothing'; why: string };
}

export interface ProcessorEventResult {
  /** applied, duplicate (seen before), refunded (paid after the booking was canceled), or ignored with why. */
  outcome: string;
  bookingId: string | null;
}

/** A checkout paid after its booking stopped waiting for it (the hold expired, or it was canceled). */
const LATE_PAYMENT = 'refunded: the payment arrived after the booking was canceled';

/**
 * Apply a processor's event to the booking whose payment it names, in that booking's business
 * and environment (the one question asked across businesses is whose payment it is). The
 * event's record and the change it causes commit together: a redelivery, even concurrent,
 * changes nothing. An event that no longer fits (the payment already settled, the booking
 * canceled meanwhile) is recorded as ignored, with why.
 */
export async function applyProcessorEvent(
  deps: { owners: OwnerLookup; tenantDb: TenantDbFactory; requestId: string; processorOf(livemode: boolean): PaymentProcessor },
  event: ProcessorEventInput,
): Promise<ProcessorEventResult> {
  const unknown = { outcome: 'ignored: no payment of this service has this processor id', bookingId: null };
  // The processor's ids are its own and unique: the payment names its business and environment.
  const owner = await deps.owners.resolveOwner('processor_payment', event.processorPaymentId);
  if (!owner) return unknown;
  const tenant = { businessId: owner.businessId, livemode: owner.livemode };
  const origin: EventOrigin = { ...tenant, requestId: deps.requestId, idempotencyKey: null };
  const db = deps.tenantDb(tenant);
  // The look-up answers whose it is and nothing more: the booking it concerns is read in the owner's scope.
  const paid = await db.payment.findFirst({ where: { processorPaymentId: event.processorPaymentId }, select: { bookingId: true } });
  if (!paid) return unknown;
  let result: ProcessorEventResult & { lateAmountCents?: number };
  try {
    result = await db.$transaction(async (tx) => {
      if (await tx.processorEvent.findUnique({ where: { id: event.id }, select: { id: true } })) return { outcome: 'duplicate', bookingId: paid.bookingId };
      // Recorded first: a concurrent delivery of the same event waits here, then finds it.
      await tx.processorEvent.create({
        data: { id: event.id, ...tenant, processor: event.processor, type: event.type, objectId: event.processorPaymentId, outcome: 'applying' },
      });
      const booking = await tx.booking.findUniqueOrThrow({ where: { id: paid.bookingId } });
      const payment = await tx.payment.findUniqueOrThrow({ where: { bookingId: booking.id } });
      let outcome = 'applied';
      const says = event.says;
      if (says.outcome === 'nothing') outcome = `ignored: ${says.why}`;
      else if (payment.processorPaymentId !== event.processorPaymentId) outcome = 'ignored: the booking has moved on to another payment';
      else if (says.outcome === 'payment_succeeded') {
        if (paymentMachine.can(payment, 'succeed') && bookingMachine.can(booking, 'payment_succeeded')) await recordPaymentSuccess(tx, origin, booking);
        else if (payment.state === 'canceled') {
          // The customer paid a booking no longer waiting for it: the money goes back (below, once recorded).
          await tx.processorEvent.update({ where: { id: event.id }, data: { outcome: LATE_PAYMENT } });
          await recordProcessorCall(tx, origin, {
            kind: 'late_payment_refund',
            bookingId: booking.id,
            subjectId: event.id,
            idempotencyKey: latePaymentKey(event.id),
            reference: event.processorPaymentId,
            amountCents: payment.amountCents,
            currency: payment.currency,
          });
          return { outcome: LATE_PAYMENT, bookingId: booking.id, lateAmountCents: payment.amountCents };
        } else outcome = `ignored: the payment is '${payment.state}' and the booking '${booking.state}'`;
      } else if (paymentMachine.can(payment, 'fail') && payment.state !== 'succeeded' && bookingMachine.can(booking, 'payment_failed')) {
        await recordPaymentFailure(tx, origin, booking, says.failure);
      } else outcome = `ignored: the payment is '${payment.state}' and the booking '${booking.state}'`;
      await tx.processorEvent.update({ where: { id: event.id }, data: { outcome } });
      return { outcome, bookingId: booking.id };
    });
  } catch (err) {
    // The same event, applied by a concurrent delivery that committed first.
    if (isUniqueViolation(err)) return { outcome: 'duplicate', bookingId: paid.bookingId };
    throw err;
  }
  if (result.lateAmountCents) {
    // Keyed by the event: a redelivery after a failed refund refunds once. If the processor
    // fails, the event's record is removed so that the processor's own retry tries again; if
    // this process dies first, the money sweep carries the refund out.
    const key = latePaymentKey(event.id);
    try {
      await deps.processorOf(tenant.livemode).refund({ processorPaymentId: event.processorPaymentId, amountCents: result.lateAmountCents, idempotencyKey: key });
    } catch (err) {
      if (await settledHere(forgetEvent(db, event.id, key))) throw err;
      return { outcome: result.outcome, bookingId: result.bookingId };
    }
    await settledHere(db.$transaction((tx) => takeProcessorCall(tx, key)));
  }
  return { outcome: result.outcome, bookingId: result.bookingId };
}

const latePaymentKey = (eventId: string) => `late-payment:${eventId}`;

/** The late payment was not given back: the event is forgotten, so the processor's next delivery of it tries again. */
const forgetEvent = (db: TenantDb, eventId: string, key: string) =>
  db.$transaction(async (tx) => {
    await takeProcessorCall(tx, key);
    await tx.processorEvent.deleteMany({ where: { id: eventId } });
  });

/** A late payment's refund whose process died before it was carried out: owed, so one never received is made now. */
export const latePaymentRecovery: CallRecovery = {
  lostCall: (call) => ({ kind: 'refund', idempotencyKey: call.id, processorPaymentId: call.reference ?? '', amountCents: call.amountCents }),
  succeeded: (m, _origin, call) => m.db.$transaction((tx) => takeProcessorCall(tx, call.id)),
  refused: (m, _origin, call) => forgetEvent(m.db, call.subjectId, call.id),
  whenAbsent: { resume: (m, call) => m.processor.refund({ processorPaymentId: call.reference ?? '', amountCents: call.amountCents, idempotencyKey: call.id }) },
};
