import type { BookingState, GateStatus } from '../../generated/prisma/enums.ts';
import { defineMachine, type UnmetGuard } from '../shared/state-machine.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import { BookingErrors } from './booking.errors.ts';

/**
 * The booking lifecycle (the spec's "States and transitions", the contract's "Booking") as
 * one table on the shared engine. A booking changes state, or a gate, only through an action
 * of this table (src/domain/bookings/booking-transitions.ts writes them).
 */
export const BOOKING_STATES = [
  'pending_payment', 'checkout_started', 'payment_pending', 'booked', 'confirmed', 'ready_for_pickup',
  'active', 'late', 'return_in_review', 'completed', 'canceled', 'refunded', 'problem',
] as const satisfies readonly BookingState[];

export type GateName = 'payment' | 'identity' | 'agreement' | 'deposit' | 'insurance';
export const GATE_NAMES: readonly GateName[] = ['payment', 'identity', 'agreement', 'deposit', 'insurance'];

/** What the guards read of a booking. */
export interface BookingFacts {
  state: BookingState;
  paymentGate: GateStatus;
  identityGate: GateStatus;
  agreementGate: GateStatus;
  depositGate: GateStatus;
  insuranceGate: GateStatus;
  /** When the vehicle was picked up (null before pickup). */
  pickedUpAt: Date | null;
}

const gateOpen = (status: GateStatus) => status === 'satisfied' || status === 'not_required';

const GUARDS = {
  payment_collected: (b: BookingFacts) => (b.paymentGate === 'satisfied' ? null : 'no payment was collected'),
  payment_settled: (b: BookingFacts) => (gateOpen(b.paymentGate) ? null : `payment is ${b.paymentGate}`),
  identity_verified: (b: BookingFacts) => (gateOpen(b.identityGate) ? null : `identity verification is ${b.identityGate}`),
  agreement_signed: (b: BookingFacts) => (gateOpen(b.agreementGate) ? null : `rental agreement is ${b.agreementGate}`),
  deposit_secured: (b: BookingFacts) => (gateOpen(b.depositGate) ? null : `security deposit is ${b.depositGate}`),
  insurance_approved: (b: BookingFacts) => (gateOpen(b.insuranceGate) ? null : `insurance is ${b.insuranceGate}`),
  not_picked_up: (b: BookingFacts) => (b.pickedUpAt === null ? null : 'the vehicle was picked up'),
  booking_confirmed: (b: BookingFacts) => (b.state === 'confirmed' || b.state === 'ready_for_pickup' ? null : `the booking is not confirmed (it is '${b.state}')`),
};

export type GuardName = keyof typeof GUARDS;

/** The readiness gate each guard stands for, as `unmet_gates` names it. */
const GATE_OF_GUARD: Partial<Record<GuardName, string>> = {
  payment_settled: 'payment',
  identity_verified: 'identity',
  agreement_signed: 'agreement',
  deposit_secured: 'deposit',
  insurance_approved: 'insurance',
  booking_confirmed: 'confirmation',
};

const READINESS: GuardName[] = ['payment_settled', 'deposit_secured', 'identity_verified', 'agreement_signed', 'insurance_approved'];
const BEFORE_PICKUP: BookingState[] = ['pending_payment', 'checkout_started', 'payment_pending', 'booked', 'confirmed', 'ready_for_pickup'];
/** Gates change (verify, sign, secure, fail) only before pickup, or while a human sorts out a problem. */
const GATE_CHANGE_STATES: BookingState[] = [...BEFORE_PICKUP, 'problem'];
/** A paid booking not yet returned may be extended (POST .../extend). */
const EXTENDABLE: BookingState[] = ['booked', 'confirmed', 'ready_for_pickup', 'active', 'late'];
/** Where a booking may be after it was paid: an extension paid for is recorded wherever it went meanwhile. */
const PAID_OR_AFTER: BookingState[] = [...EXTENDABLE, 'return_in_review', 'completed', 'problem', 'canceled', 'refunded'];
/** The period is fixed once money is on its way: a paid booking is extended instead. */
const extendInstead = (b: BookingFacts) =>
  CommonErrors.invalidStateTransition('booking', b.state, `The period of a paid booking (state '${b.state}') cannot be changed; extend it with POST /v1/bookings/{booking_id}/extend.`);
const FLAGGABLE: BookingState[] = ['payment_pending', 'booked', 'confirmed', 'ready_for_pickup', 'active', 'late', 'return_in_review', 'completed'];

/** Unmet readiness is `booking_not_ready` listing the gates (the spec's gating rule 1). */
const notReady = (unmet: UnmetGuard<GuardName>[]) => BookingErrors.notReady(unmet.map((u) => ({ gate: GATE_OF_GUARD[u.guard] ?? u.guard, reason: u.reason })));

export const bookingMachine = defineMachine({
  object: 'booking',
  states: BOOKING_STATES,
  initial: ['pending_payment'],
  // Not canceled: a refund carried out after the cancellation (the processor answers later, or
  // the business refunds afterwards) moves a canceled booking on to refunded.
  terminal: ['refunded'],
  guards: GUARDS,
  actions: {
    start_checkout: { from: ['pending_payment'], to: 'checkout_started', event: 'booking.checkout_started' },
    submit_payment: { from: ['pending_payment', 'checkout_started'], to: 'payment_pending', event: 'payment.processing' },
    payment_succeeded: { from: ['pending_payment', 'checkout_started', 'payment_pending'], to: 'booked', set: { paymentGate: 'satisfied' }, event: 'payment.succeeded' },
    payment_failed: { from: ['pending_payment', 'checkout_started', 'payment_pending'], to: 'pending_payment', set: { paymentGate: 'failed' }, event: 'payment.failed' },
    // A payment that fails once the booking was booked: the gate fails here, then flag_problem.
    payment_failed_after_booking: { from: FLAGGABLE.filter((s) => s !== 'payment_pending'), set: { paymentGate: 'failed' }, event: 'payment.failed', verb: 'fail the payment of' },
    confirm: { from: ['booked'], to: 'confirmed', event: 'booking.confirmed' },
    mark_ready: { from: ['confirmed'], to: 'ready_for_pickup', guards: READINESS, event: 'pickup.ready', verb: 'make ready' },
    gate_regressed: { from: ['ready_for_pickup'], to: 'confirmed', event: 'booking.confirmed' },
    // Allowed from every pre-pickup state so that an early pickup answers booking_not_ready
    // with the unmet gates (the spec's gating rule 1), not a bare wrong-state conflict.
    // The pickup's records (photos, odometer) are kept once the booking is paid, before it starts.
    record_pickup: { from: ['booked', 'confirmed', 'ready_for_pickup'], records: ['mileageOut'], verb: 'record the pickup of' },
    // The return's records (photos, odometer) are kept while the vehicle is out.
    record_return: { from: ['active', 'late'], records: ['mileageIn'], verb: 'record the return of' },
    start_rental: { from: BEFORE_PICKUP, to: 'active', guards: [...READINESS, 'booking_confirmed'], refuse: notReady, event: 'rental.started', verb: 'start the rental of' },
    make_late: { from: ['active'], to: 'late', event: 'rental.late', verb: 'make late' },
    submit_return: { from: ['active', 'late'], to: 'return_in_review', event: 'return.submitted', verb: 'submit the return of' },
    complete_return: { from: ['return_in_review'], to: 'completed', event: 'rental.completed', verb: 'complete the return of' },
    cancel: { from: BEFORE_PICKUP, to: 'canceled', event: 'booking.canceled' },
    // booking.canceled was emitted with the cancellation; payment.refunded tells of the money.
    refund_canceled: { from: ['canceled'], to: 'refunded', guards: ['payment_collected'], verb: 'refund' },
    expire_hold: { from: ['pending_payment', 'checkout_started'], to: 'canceled', event: 'booking.canceled', verb: 'expire the hold of' },
    flag_problem: { from: FLAGGABLE, to: 'problem', event: 'booking.problem', verb: 'flag a problem on' },
    // A booking in problem before pickup whose cause is gone (its identity verified after a
    // rejection; its payment collected) is paid and waits for confirmation again: booked, then
    // confirmed as any paid booking is (at once, or by approval when approval is manual).
    resume: { from: ['problem'], to: 'booked', guards: ['payment_collected', 'identity_verified', 'not_picked_up'], event: 'booking.resumed', verb: 'resume' },
    resolve_to_confirmed: { from: ['problem'], to: 'confirmed', event: 'booking.confirmed', verb: 'resolve' },
    resolve_to_active: { from: ['problem'], to: 'active', event: 'rental.started', verb: 'resolve' },
    resolve_to_return_review: { from: ['problem'], to: 'return_in_review', event: 'return.submitted', verb: 'resolve' },
    resolve_to_completed: { from: ['problem'], to: 'completed', event: 'rental.completed', verb: 'resolve' },
    resolve_to_canceled: { from: ['problem'], to: 'canceled', event: 'booking.canceled', verb: 'resolve' },
    // The booking's own fields (POST /v1/bookings/{id}, POST .../extend); the state stays,
    // except a late rental extended past the present, which is back to active.
    update_metadata: { from: BOOKING_STATES.filter((s) => !['completed', 'canceled', 'refunded'].includes(s)), records: ['metadata'], event: 'booking.updated', verb: 'update' },
    change_period: {
      from: ['pending_payment'],
      records: ['startAt', 'endAt', 'unlimitedMiles', 'metadata'],
      event: 'booking.updated',
      verb: 'change the period of',
      lockedIn: Object.fromEntries(EXTENDABLE.map((s) => [s, extendInstead])),
    },
    reserve_extension: { from: EXTENDABLE, records: ['endAt'], verb: 'extend' },
    release_extension: { from: PAID_OR_AFTER, records: ['endAt'], verb: 'give back the extension of' },
    confirm_extension: { from: PAID_OR_AFTER, records: ['endAt'], event: 'booking.extended', verb: 'extend' },
    extend_late_rental: { from: ['late'], to: 'active', records: ['endAt'], event: 'booking.extended', verb: 'extend' },
    // Gate changes: the checks and the processor report; the state stays.
    verify_identity: { from: GATE_CHANGE_STATES, set: { identityGate: 'satisfied' }, verb: 'verify the identity of' },
    reject_identity: { from: GATE_CHANGE_STATES, set: { identityGate: 'failed' }, verb: 'reject the identity of' },
    // A verification started again after a rejection: the gate waits for the new verdict.
    restart_identity: { from: GATE_CHANGE_STATES, set: { identityGate: 'pending' }, verb: 'start the identity verification of' },
    sign_agreement: { from: GATE_CHANGE_STATES, set: { agreementGate: 'satisfied' }, verb: 'sign the agreement of' },
    // A voided agreement no longer counts: the gate waits for a new one to be signed.
    void_agreement: { from: GATE_CHANGE_STATES, set: { agreementGate: 'pending' }, verb: 'void the agreement of' },
    secure_deposit: { from: GATE_CHANGE_STATES, set: { depositGate: 'satisfied' }, verb: 'secure the deposit of' },
    approve_insurance: { from: GATE_CHANGE_STATES, set: { insuranceGate: 'satisfied' }, verb: 'approve the insurance of' },
    reject_insurance: { from: GATE_CHANGE_STATES, set: { insuranceGate: 'failed' }, verb: 'reject the insurance of' },
    resubmit_insurance: { from: GATE_CHANGE_STATES, set: { insuranceGate: 'pending' }, verb: 'submit the insurance of' },
  },
});

export type BookingAction = keyof typeof bookingMachine.actions;

/** States the booking can move to next, with every guard currently met (exposed to clients). */
export const nextStates = (facts: BookingFacts): BookingState[] => bookingMachine.nextStates(facts);

/** States whose booking no longer occupies its vehicle (the exclusion constraint's complement). */
export const RELEASED_STATES: readonly BookingState[] = ['canceled', 'refunded'];

/** The readiness gates as `GET .../pickup-readiness` shows them: each gate, its status, and what is missing (null when met). */
export function readinessGates(facts: BookingFacts): { name: string; status: string; missing: string | null }[] {
  const status: Record<string, string> = { payment: facts.paymentGate, identity: facts.identityGate, agreement: facts.agreementGate, deposit: facts.depositGate, insurance: facts.insuranceGate };
  return [...READINESS, 'booking_confirmed' as const].map((guard) => {
    const name = GATE_OF_GUARD[guard]!;
    const missing = GUARDS[guard](facts);
    return { name, status: status[name] ?? (missing ? 'pending' : 'satisfied'), missing };
  });
}
