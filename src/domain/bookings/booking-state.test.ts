import { describe, expect, it } from 'vitest';
import { bookingFacts as facts, errorOf } from './booking-facts.fixture.ts';
import { DomainError } from '../shared/errors.ts';
import { BOOKING_STATES, bookingMachine, nextStates } from './booking-state.ts';

const transition = bookingMachine.check;

describe('booking transition table', () => {
  it('reaches every one of the 13 states of the spec', () => {
    const targets = new Set(Object.values(bookingMachine.actions).map((r) => r.to));
    expect(BOOKING_STATES).toHaveLength(13);
    for (const state of BOOKING_STATES) if (state !== 'pending_payment') expect(targets).toContain(state);
  });

  it('starts a rental when every gate is met, emitting rental.started', () => {
    expect(transition(facts(), 'start_rental')).toMatchObject({ to: 'active', event: 'rental.started' });
  });

  it('refuses to start a rental before the deposit is secured, with booking_not_ready listing the gate', () => {
    const err = (() => {
      try {
        transition(facts({ depositGate: 'pending' }), 'start_rental');
      } catch (e) {
        return e as DomainError;
      }
    })();
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ type: 'invalid_request', code: 'booking_not_ready' });
    expect(err!.message).toContain('security deposit is pending');
  });

  it('answers a wrong-state action with invalid_state_transition naming the current state', () => {
    expect(() => transition(facts({ state: 'completed' }), 'cancel')).toThrow(/'completed'/);
    try {
      transition(facts({ state: 'active' }), 'cancel');
    } catch (e) {
      expect(e).toMatchObject({ type: 'conflict', code: 'invalid_state_transition' });
    }
  });

  it('allows cancel before pickup only', () => {
    for (const state of ['pending_payment', 'checkout_started', 'payment_pending', 'booked', 'confirmed', 'ready_for_pickup'] as const) {
      expect(transition(facts({ state }), 'cancel').to).toBe('canceled');
    }
    for (const state of ['active', 'late', 'return_in_review', 'completed', 'canceled', 'refunded'] as const) {
      expect(() => transition(facts({ state }), 'cancel')).toThrow(DomainError);
    }
  });

  it('lists next states with guards considered', () => {
    expect(nextStates(facts({ state: 'confirmed', identityGate: 'pending' }))).not.toContain('ready_for_pickup');
    expect(nextStates(facts({ state: 'confirmed' }))).toContain('ready_for_pickup');
    // A canceled booking goes on to refunded only when money was collected (a refund carried out after the cancellation).
    expect(nextStates(facts({ state: 'canceled', paymentGate: 'pending' }))).toEqual([]);
    expect(nextStates(facts({ state: 'canceled', paymentGate: 'satisfied' }))).toEqual(['refunded']);
    expect(nextStates(facts({ state: 'refunded' }))).toEqual([]);
  });
});

describe('booking gate actions', () => {
  it('names the unmet gates in unmet_gates, for clients to switch on', () => {
    const err = errorOf(() => transition(facts({ state: 'booked', depositGate: 'pending', identityGate: 'failed' }), 'start_rental')) as DomainError;
    expect(err.details).toEqual({ unmet_gates: ['deposit', 'identity', 'confirmation'] });
  });

  it('changes gates only before pickup or while a problem is open, never the state', () => {
    for (const state of ['pending_payment', 'booked', 'confirmed', 'ready_for_pickup', 'problem'] as const) {
      expect(transition(facts({ state }), 'verify_identity')).toMatchObject({ set: { identityGate: 'satisfied' } });
      expect(transition(facts({ state }), 'secure_deposit').to).toBeUndefined();
    }
    for (const state of ['active', 'late', 'return_in_review', 'completed', 'canceled', 'refunded'] as const) {
      const err = errorOf(() => transition(facts({ state }), 'sign_agreement')) as DomainError;
      expect(err).toMatchObject({ code: 'invalid_state_transition', details: { object: 'booking', current_state: state } });
      expect(err.message).toBe(`Cannot sign the agreement of a booking in state '${state}'.`);
    }
  });

  it('never offers a gate action as a next state', () => {
    expect(nextStates(facts({ state: 'problem', pickedUpAt: new Date() }))).toEqual(['confirmed', 'active', 'return_in_review', 'completed', 'canceled']);
    // Before pickup, paid and verified, it may resume (booked again).
    expect(nextStates(facts({ state: 'problem' }))).toEqual(['booked', 'confirmed', 'active', 'return_in_review', 'completed', 'canceled']);
  });
});
