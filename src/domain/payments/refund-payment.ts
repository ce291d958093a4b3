import { z } from 'zod';
import type { Payment, ProcessorCall } from '../../generated/prisma/client.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import { loadSettings } from '../business/business-settings.ts';
import { policyRefund, refundDue } from './payment-cancel.ts';
import { readBooking } from '../bookings/get-booking.ts';
import { originOf } from '../events/event.service.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import type { Db, DomainContext } from '../shared/context.ts';
import type { EventOrigin } from '../events/event.service.ts';
import { bookingMachine } from '../bookings/booking-state.ts';
import { applyBookingAction } from '../bookings/booking-transitions.ts';
import { found } from '../shared/found.ts';
import { newId } from '../shared/ids.ts';
import { runAction } from '../shared/lifecycle.ts';
import { defineOperation, wantsRelations, type PrismaQuery } from '../shared/operation.ts';
import { id, money } from '../shared/validation.ts';
import { PaymentErrors, ProcessorErrors } from './payment.errors.ts';
import { paymentLifecycle, paymentMachine } from './payment-state.ts';
import { recordTransaction, settleTransaction } from './transactions.ts';
import { recordProcessorCall, settledHere, takeProcessorCall, type CallRecovery, type MoneyContext } from './processor-calls.ts';

const refundInput = z
  .object({
    amountCents: money('How much to give back; without it, what the cancellation policy allows.').refine((n) => n > 0, 'must be greater than 0').nullish(),
    reason: z.string().trim().min(1).max(500).nullish().meta({ description: 'Why, in your words; kept on the refund transaction.' }),
  })
  .meta({ id: 'RefundInput' });

/** A refund reserved (of the payment, or of an extension's charge), not yet carried out at the processor. */
export interface RefundReservation {
  transactionId: string;
  bookingId: string;
  /** What the refund gives back at the processor: the payment's, or the extension charge's, own id. */
  processorPaymentId: string;
  amountCents: number;
  /** The refund's idempotency key at the processor, on record until the refund is settled. */
  callKey: string;
}

/**
 * Reserve a refund in the caller's transaction: the payment's compare-and-set serializes
 * refunds, and the database's check stops any that would exceed the payment. A pending refund
 * transaction records it until the processor has answered, and the processor call is on
 * record for the money sweep should this process die before then.
 */
export async function reserveRefund(tx: Db, origin: EventOrigin, payment: Payment, amountCents: number, reason: string | null): Promise<RefundReservation & { payment: Payment }> {
  const refunded = payment.amountRefundedCents + amountCents;
  const updated = await runAction(tx, origin, paymentLifecycle, payment, refunded >= payment.amountCents ? 'refund_fully' : 'refund_partially', { amountRefundedCents: refunded });
  const reservation = await reservePendingRefund(tx, origin, { bookingId: payment.bookingId, processorPaymentId: payment.processorPaymentId ?? payment.id, amountCents, currency: payment.currency, reason });
  return { ...reservation, payment: updated };
}

/** The pending refund transaction and its processor call (its own idempotency key), written in the reservation's transaction. */
async function reservePendingRefund(tx: Db, origin: EventOrigin, refund: Omit<RefundReservation, 'transactionId' | 'callKey'> & { currency: string; reason: string | null; refundedTransactionId?: string }): Promise<RefundReservation> {
  const { bookingId, processorPaymentId, amountCents, currency, reason, refundedTransactionId } = refund;
  const transactionId = newId('transaction');
  await recordTransaction(tx, origin, { id: transactionId, bookingId, ...(refundedTransactionId ? { refundedTransactionId } : {}), type: 'refund', status: 'pending', amountCents, currency, reason });
  const callKey = `refund:${transactionId}`;
  await recordProcessorCall(tx, origin, { kind: 'refund', bookingId, subjectId: transactionId, idempotencyKey: callKey, reference: processorPaymentId, amountCents, currency });
  return { transactionId, bookingId, processorPaymentId, amountCents, callKey };
}

/**
 * Reserve, in a cancellation's transaction, what the cancellation policy gives back of each
 * extension's charge (the same policy as the payment's, `policyRefund`): a refund of its own
 * against that charge at the processor (its `processorId`), recorded as a refund transaction
 * naming the extension (`refundedTransactionId`), never more than the charge minus what
 * was already given back of it.
 */
export async function reserveExtensionRefunds(tx: Db, origin: EventOrigin, booking: { id: string; startAt: Date }, now: Date, settings: Parameters<typeof policyRefund>[3], reason: string): Promise<RefundReservation[]> {
  const extensions = await tx.transaction.findMany({ where: { bookingId: booking.id, type: 'extension', status: 'succeeded', processorId: { not: null } }, orderBy: { id: 'asc' } });
  if (extensions.length === 0) return [];
  const refunds = await tx.transaction.findMany({ where: { bookingId: booking.id, type: 'refund', status: { not: 'failed' }, refundedTransactionId: { in: extensions.map((x) => x.id) } }, select: { refundedTransactionId: true, amountCents: true } });
  const reservations: RefundReservation[] = [];
  for (const extension of extensions) {
    const given = refunds.filter((r) => r.refundedTransactionId === extension.id).reduce((sum, r) => sum + r.amountCents, 0);
    const due = policyRefund(extension.amountCents - given, booking.startAt, now, settings);
    if (due <= 0) continue;
    reservations.push(await reservePendingRefund(tx, origin, { bookingId: booking.id, processorPaymentId: extension.processorId!, amountCents: due, currency: extension.currency, reason, refundedTransactionId: extension.id }));
  }
  return reservations;
}

/** The processor refunded it: the transaction succeeded, and a canceled booking whose money went back ends refunded. */
function settleRefund(db: TenantDb, origin: EventOrigin, reservation: Pick<RefundReservation, 'transactionId' | 'bookingId' | 'callKey'>) {
  return db.$transaction(async (tx) => {
    await takeProcessorCall(tx, reservation.callKey);
    await settleTransaction(tx, reservation.transactionId, 'succeeded');
    const booking = await tx.booking.findUniqueOrThrow({ where: { id: reservation.bookingId } });
    if (bookingMachine.can(booking, 'refund_canceled')) await applyBookingAction(tx, origin, booking, 'refund_canceled');
  });
}

/**
 * The processor did not refund it: the transaction failed, and a refund of the payment is
 * given back to it (`payment.refund_failed`); a refund of an extension's charge reserved
 * nothing on the payment.
 */
function giveBackRefund(db: TenantDb, origin: EventOrigin, reservation: Pick<RefundReservation, 'transactionId' | 'bookingId' | 'amountCents' | 'callKey'>) {
  return db.$transaction(async (tx) => {
    await takeProcessorCall(tx, reservation.callKey);
    const refund = await tx.transaction.findUniqueOrThrow({ where: { id: reservation.transactionId }, select: { refundedTransactionId: true } });
    if (refund.refundedTransactionId) return settleTransaction(tx, reservation.transactionId, 'failed');
    const current = await tx.payment.findUniqueOrThrow({ where: { bookingId: reservation.bookingId } });
    const refunded = current.amountRefundedCents - reservation.amountCents;
    await runAction(tx, origin, paymentLifecycle, current, refunded > 0 ? 'reverse_refund_partially' : 'reverse_refund', { amountRefundedCents: refunded });
    await settleTransaction(tx, reservation.transactionId, 'failed');
  });
}

/**
 * Carry out a reserved refund at the processor, under an idempotency key of its own, then
 * settle it; a canceled booking whose money went back ends refunded. If the processor fails,
 * the reservation is given back (`payment.refund_failed`), the transaction is failed, and the
 * processor's error is thrown: nothing is left half-written. (If the money sweep settled it
 * meanwhile, what it settled stands.)
 */
export async function carryOutRefund(m: MoneyContext, origin: EventOrigin, reservation: RefundReservation): Promise<void> {
  try {
    await m.processor.refund({ processorPaymentId: reservation.processorPaymentId, amountCents: reservation.amountCents, idempotencyKey: reservation.callKey });
  } catch (err) {
    if (await settledHere(giveBackRefund(m.db, origin, reservation))) throw err;
    return;
  }
  await settledHere(settleRefund(m.db, origin, reservation));
}

/** A refund whose request died before settling it: it is owed, so one never received is made now, under its key. */
export const refundRecovery: CallRecovery = {
  lostCall: (call) => ({ kind: 'refund', idempotencyKey: call.id, processorPaymentId: call.reference ?? '', amountCents: call.amountCents }),
  succeeded: (m, origin, call) => settleRefund(m.db, origin, reservationOf(call)),
  refused: (m, origin, call) => giveBackRefund(m.db, origin, reservationOf(call)),
  whenAbsent: { resume: (m, call) => m.processor.refund({ processorPaymentId: call.reference ?? '', amountCents: call.amountCents, idempotencyKey: call.id }) },
};

const reservationOf = (call: ProcessorCall) => ({ transactionId: call.subjectId, bookingId: call.bookingId, amountCents: call.amountCents, callKey: call.id });

/**
 * Give back part or all of a booking's collected payment: reserved, carried out at the
 * processor, settled (reserveRefund, carryOutRefund).
 */
export async function refundPayment(ctx: DomainContext, bookingId: string, input: z.output<typeof refundInput> | null | undefined, query: PrismaQuery = {}) {
  const booking = await readBooking(ctx, bookingId);
  const payment = await found(ctx.db.payment.findUnique({ where: { bookingId: booking.id } }), 'booking', booking.id);
  paymentMachine.check(payment, 'refund_partially');
  const available = payment.amountCents - payment.amountRefundedCents;
  let amount = input?.amountCents ?? null;
  if (amount === null) {
    const { settings } = await loadSettings(ctx);
    amount = refundDue(payment, booking.startAt, ctx.now(), settings);
    if (amount <= 0) throw PaymentErrors.nothingRefundable(booking.startAt);
  }
  if (amount > available) throw PaymentErrors.amountExceedsAvailable('refunded', available, payment.currency);

  const origin = originOf(ctx);
  const reservation = await ctx.db.$transaction((tx) => reserveRefund(tx, origin, payment, amount, input?.reason ?? null));
  await carryOutRefund(ctx, origin, reservation);
  return wantsRelations(query) ? ctx.db.payment.findUniqueOrThrow({ ...query, where: { id: payment.id } }) : (reservation.payment satisfies Payment);
}

export const refundBookingPayment = defineOperation({
  name: 'refundBookingPayment',
  summary: 'Request an eligible refund',
  description:
    "Gives back part (amount_cents) or all of the booking's collected payment; without an amount, what the business's cancellation policy allows (in full at least cancellation_window_hours before start_at, else late_cancellation_refund_percent of what was paid). Never more than paid minus already refunded, also under concurrency: 409 amount_exceeds_available names what is available. The payment moves to partially_refunded or refunded (payment.refunded) and a refund transaction records it; if the processor fails, nothing stays changed (payment.refund_failed) and its error is the answer.",
  access: { permission: 'payments:write' },
  args: z.object({ bookingId: id('The booking (bk_...).'), input: refundInput.nullish() }),
  errors: [CommonErrors.invalidStateTransition, PaymentErrors.amountExceedsAvailable, PaymentErrors.nothingRefundable, ProcessorErrors.unavailable, ProcessorErrors.notConfigured],
  example: { bookingId: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x', input: { amountCents: 2500, reason: 'late pickup, goodwill' } },
  run: (ctx, args, { query }) => refundPayment(ctx, args.bookingId, args.input, query),
});
