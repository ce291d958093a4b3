import type { BookingState, GateStatus } from '../../generated/prisma/enums.ts';
import { conflict, DomainError } from '../shared/errors.ts';

/**
 * The booking lifecycle (SPEC.md "States and transitions", CONTRACT.md "Booking") as one
 * table of actions. A booking changes state only through `transition`, which checks the
 * source state and the action's named guards; the event named here is emitted with it.
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
  /** Open disputes on the booking's charges lock post-trip collection. */
  openDisputes?: number;
}

export type GuardName =
  | 'payment_collected' | 'payment_settled' | 'identity_verified' | 'agreement_signed' | 'deposit_secured' | 'insurance_approved'
  | 'booking_confirmed' | 'no_dispute_lock';

const gateOpen = (status: GateStatus) => status === 'satisfied' || status === 'not_required';

/** Each guard returns the reason it fails, or null when it passes. */
export const GUARDS: Record<GuardName, (b: BookingFacts) => string | null> = {
  payment_collected: (b) => (b.paymentGate === 'satisfied' ? null : 'no payment was collected'),
  payment_settled: (b) => (gateOpen(b.paymentGate) ? null : `payment is ${b.paymentGate}`),
  identity_verified: (b) => (gateOpen(b.identityGate) ? null : `identity verification is ${b.identityGate}`),
  agreement_signed: (b) => (gateOpen(b.agreementGate) ? null : `rental agreement is ${b.agreementGate}`),
  deposit_secured: (b) => (gateOpen(b.depositGate) ? null : `security deposit is ${b.depositGate}`),
  insurance_approved: (b) => (gateOpen(b.insuranceGate) ? null : `insurance is ${b.insuranceGate}`),
  booking_confirmed: (b) => (b.state === 'confirmed' || b.state === 'ready_for_pickup' ? null : `the booking is not confirmed (it is '${b.state}')`),
  no_dispute_lock: (b) => ((b.openDisputes ?? 0) > 0 ? `${b.openDisputes} open dispute(s) lock collection` : null),
};

const READINESS: GuardName[] = ['payment_settled', 'deposit_secured', 'identity_verified', 'agreement_signed', 'insurance_approved'];
const BEFORE_PICKUP: BookingState[] = ['pending_payment', 'checkout_started', 'payment_pending', 'booked', 'confirmed', 'ready_for_pickup'];

export interface ActionRule {
  from: readonly BookingState[];
  to: BookingState;
  guards?: readonly GuardName[];
  /** Guard failures of these actions are `booking_not_ready` (SPEC.md gating rule 1). */
  readinessError?: boolean;
  event?: string;
}

export const BOOKING_ACTIONS = {
  start_checkout: { from: ['pending_payment'], to: 'checkout_started', event: 'booking.checkout_started' },
  submit_payment: { from: ['pending_payment', 'checkout_started'], to: 'payment_pending', event: 'payment.processing' },
  payment_succeeded: { from: ['pending_payment', 'checkout_started', 'payment_pending'], to: 'booked', event: 'payment.succeeded' },
  payment_failed: { from: ['pending_payment', 'checkout_started', 'payment_pending'], to: 'pending_payment', event: 'payment.failed' },
  confirm: { from: ['booked'], to: 'confirmed', event: 'booking.confirmed' },
  mark_ready: { from: ['confirmed'], to: 'ready_for_pickup', guards: READINESS, event: 'pickup.ready' },
  gate_regressed: { from: ['ready_for_pickup'], to: 'confirmed', event: 'booking.confirmed' },
  // Allowed from every pre-pickup state so that an early pickup answers booking_not_ready
  // with the unmet gates (SPEC.md gating rule 1), not a bare wrong-state conflict.
  start_rental: { from: BEFORE_PICKUP, to: 'active', guards: [...READINESS, 'booking_confirmed'], readinessError: true, event: 'rental.started' },
  make_late: { from: ['active'], to: 'late', event: 'rental.late' },
  submit_return: { from: ['active', 'late'], to: 'return_in_review', event: 'return.submitted' },
  complete_return: { from: ['return_in_review'], to: 'completed', event: 'rental.completed' },
  cancel: { from: BEFORE_PICKUP, to: 'canceled', event: 'booking.canceled' },
  cancel_with_refund: { from: BEFORE_PICKUP, to: 'refunded', guards: ['payment_collected'], event: 'booking.canceled' },
  expire_hold: { from: ['pending_payment', 'checkout_started'], to: 'canceled', event: 'booking.canceled' },
  flag_problem: { from: ['payment_pending', 'booked', 'confirmed', 'ready_for_pickup', 'active', 'late', 'return_in_review', 'completed'], to: 'problem', event: 'booking.problem' },
  resolve_to_confirmed: { from: ['problem'], to: 'confirmed', event: 'booking.confirmed' },
  resolve_to_active: { from: ['problem'], to: 'active', event: 'rental.started' },
  resolve_to_return_review: { from: ['problem'], to: 'return_in_review', event: 'return.submitted' },
  resolve_to_completed: { from: ['problem'], to: 'completed', event: 'rental.completed' },
  resolve_to_canceled: { from: ['problem'], to: 'canceled', event: 'booking.canceled' },
} as const satisfies Record<string, ActionRule>;

export type BookingAction = keyof typeof BOOKING_ACTIONS;

/** Every state is reachable and every terminal state is declared: checked once at load. */
function validateTable(): void {
  const reachable = new Set<BookingState>(['pending_payment']);
  for (const rule of Object.values(BOOKING_ACTIONS) as ActionRule[]) {
    if (!BOOKING_STATES.includes(rule.to as (typeof BOOKING_STATES)[number])) throw new Error(`unknown target state ${rule.to}`);
    reachable.add(rule.to);
  }
  const missing = BOOKING_STATES.filter((s) => !reachable.has(s));
  if (missing.length) throw new Error(`booking states not reachable: ${missing.join(', ')}`);
}
validateTable();

export function unmetGuards(rule: ActionRule, facts: BookingFacts): string[] {
  return (rule.guards ?? []).map((g) => GUARDS[g](facts)).filter((r): r is string => r !== null);
}

/**
 * Check an action against a booking; return its rule (target state, event) or throw the
 * contract's error: 409 `invalid_state_transition` naming the current state, or 400
 * `booking_not_ready` listing the unmet gates.
 */
export function transition(facts: BookingFacts, action: BookingAction): ActionRule {
  const rule: ActionRule = BOOKING_ACTIONS[action];
  if (!rule.from.includes(facts.state)) {
    throw conflict('invalid_state_transition', `Cannot ${action.replace(/_/g, ' ')} a booking in state '${facts.state}'.`);
  }
  const unmet = unmetGuards(rule, facts);
  if (unmet.length) {
    if (rule.readinessError) {
      throw new DomainError('invalid_request', 'booking_not_ready', `The booking is not ready: ${unmet.join('; ')}.`);
    }
    throw conflict('invalid_state_transition', `Cannot ${action.replace(/_/g, ' ')}: ${unmet.join('; ')}.`);
  }
  return rule;
}

/** States the booking can move to next, with every guard currently met (exposed to clients). */
export function nextStates(facts: BookingFacts): BookingState[] {
  const next = new Set<BookingState>();
  for (const rule of Object.values(BOOKING_ACTIONS) as ActionRule[]) {
    if (rule.to !== facts.state && rule.from.includes(facts.state) && unmetGuards(rule, facts).length === 0) next.add(rule.to);
  }
  return [...next];
}

/** States whose booking still occupies its vehicle (the exclusion constraint's complement). */
export const RELEASED_STATES: readonly BookingState[] = ['canceled', 'refunded'];

/** Gates change (verify, sign, secure, fail) only before pickup, or while a human sorts out a problem. */
export const GATE_CHANGE_STATES: readonly BookingState[] = [...BEFORE_PICKUP, 'problem'];

/** Throw 409 `invalid_state_transition` when the booking's gates can no longer change. */
export function assertGatesChangeable(facts: Pick<BookingFacts, 'state'>, what: string): void {
  if (!GATE_CHANGE_STATES.includes(facts.state)) {
    throw conflict('invalid_state_transition', `Cannot ${what} of a booking in state '${facts.state}'.`);
  }
}
