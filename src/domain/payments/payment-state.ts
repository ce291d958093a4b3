import type { Payment } from '../../generated/prisma/client.ts';
import type { PaymentState } from '../../generated/prisma/enums.ts';
import { bookingRecordLifecycle } from '../shared/lifecycle.ts';
import { defineMachine } from '../shared/state-machine.ts';
import { presentPayment } from './payment.fields.ts';

/**
 * A booking's rental payment (the contract's "Money"): requires_payment → checkout_started →
 * processing → succeeded | failed; succeeded → partially_refunded → refunded (back, when the
 * processor fails a refund); canceled.
 * The booking's own actions emit payment.succeeded / payment.failed with the booking.
 */
export const paymentMachine = defineMachine({
  object: 'payment',
  states: ['requires_payment', 'checkout_started', 'processing', 'succeeded', 'failed', 'partially_refunded', 'refunded', 'canceled'] as const satisfies readonly PaymentState[],
  initial: ['requires_payment'],
  // Not refunded: a refund the processor then fails is given back.
  terminal: ['canceled'],
  actions: {
    start_checkout: { from: ['requires_payment', 'failed'], to: 'checkout_started', verb: 'start the checkout of' },
    submit: { from: ['requires_payment', 'checkout_started', 'failed'], to: 'processing' },
    succeed: { from: ['requires_payment', 'checkout_started', 'processing', 'failed'], to: 'succeeded' },
    // From succeeded too (a collected payment the processor reverses after the booking), and
    // again from failed (a retry declined once more).
    fail: { from: ['requires_payment', 'checkout_started', 'processing', 'succeeded', 'failed'], to: 'failed' },
    refund_partially: { from: ['succeeded', 'partially_refunded'], to: 'partially_refunded', event: 'payment.refunded', verb: 'refund' },
    refund_fully: { from: ['succeeded', 'partially_refunded'], to: 'refunded', event: 'payment.refunded', verb: 'refund' },
    // A refund the processor did not carry out gives its amount back to the payment.
    reverse_refund: { from: ['partially_refunded', 'refunded'], to: 'succeeded', event: 'payment.refund_failed', verb: 'reverse a refund of' },
    reverse_refund_partially: { from: ['partially_refunded', 'refunded'], to: 'partially_refunded', event: 'payment.refund_failed', verb: 'reverse a refund of' },
    cancel: { from: ['requires_payment', 'checkout_started', 'processing', 'failed'], to: 'canceled' },
  },
});

export type PaymentAction = keyof typeof paymentMachine.actions;

export const paymentLifecycle = bookingRecordLifecycle<Payment, PaymentAction>(paymentMachine, (db) => db.payment, presentPayment);
