import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { TenantDbFactory } from '../../db/tenant-db.ts';
import { isUniqueViolation } from '../../db/database-errors.ts';
import { bookingMachine } from '../bookings/booking-state.ts';
import type { EventOrigin } from '../events/event.service.ts';
import { recordPaymentFailure, recordPaymentSuccess, type PaymentFailure } from './payment-outcomes.ts';
import { paymentMachine } from './payment-state.ts';

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
  /** applied, duplicate (seen before), or ignored with why. */
  outcome: string;
  bookingId: string | null;
}

/**
 * Apply a processor's event to the booking whose payment it names, in that booking's business
 * and environment (the one question asked across businesses is whose payment it is). The
 * event's record and the change it causes commit together: a redelivery, even concurrent,
 * changes nothing. An event that no longer fits (the payment already settled, the booking
 * canceled meanwhile) is recorded as ignored, with why.
 */
export async function applyProcessorEvent(deps: { prisma: PrismaClient; tenantDb: TenantDbFactory; requestId: string }, event: ProcessorEventInput): Promise<ProcessorEventResult> {
  const owner = await deps.prisma.payment.findFirst({
    // The processor's ids are its own and unique: the payment names its business and environment.
    where: { processorPaymentId: event.processorPaymentId },
    select: { businessId: true, livemode: true, bookingId: true },
  });
  if (!owner) return { outcome: 'ignored: no payment of this service has this processor id', bookingId: null };
  const tenant = { businessId: owner.businessId, livemode: owner.livemode };
  const origin: EventOrigin = { ...tenant, requestId: deps.requestId, idempotencyKey: null };
  const db = deps.tenantDb(tenant);
  try {
    return await db.$transaction(async (tx) => {
      if (await tx.processorEvent.findUnique({ where: { id: event.id }, select: { id: true } })) return { outcome: 'duplicate', bookingId: owner.bookingId };
      // Recorded first: a concurrent delivery of the same event waits here, then finds it.
      await tx.processorEvent.create({
        data: { id: event.id, ...tenant, processor: event.processor, type: event.type, objectId: event.processorPaymentId, outcome: 'applying' },
      });
      const booking = await tx.booking.findUniqueOrThrow({ where: { id: owner.bookingId } });
      const payment = await tx.payment.findUniqueOrThrow({ where: { bookingId: booking.id } });
      let outcome = 'applied';
      const says = event.says;
      if (says.outcome === 'nothing') outcome = `ignored: ${says.why}`;
      else if (payment.processorPaymentId !== event.processorPaymentId) outcome = 'ignored: the booking has moved on to another payment';
      else if (says.outcome === 'payment_succeeded') {
        if (paymentMachine.can(payment, 'succeed') && bookingMachine.can(booking, 'payment_succeeded')) await recordPaymentSuccess(tx, origin, booking);
        else outcome = `ignored: the payment is '${payment.state}' and the booking '${booking.state}'`;
      } else if (paymentMachine.can(payment, 'fail') && payment.state !== 'succeeded' && bookingMachine.can(booking, 'payment_failed')) {
        await recordPaymentFailure(tx, origin, booking, says.failure);
      } else outcome = `ignored: the payment is '${payment.state}' and the booking '${booking.state}'`;
      await tx.processorEvent.update({ where: { id: event.id }, data: { outcome } });
      return { outcome, bookingId: booking.id };
    });
  } catch (err) {
    // The same event, applied by a concurrent delivery that committed first.
    if (isUniqueViolation(err)) return { outcome: 'duplicate', bookingId: owner.bookingId };
    throw err;
  }
}
