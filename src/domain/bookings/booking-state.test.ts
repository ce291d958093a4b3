import { describe, expect, it } from 'vitest';
import { bookingFacts as facts } from './booking-facts.fixture.ts';
import { DomainError } from '../shared/errors.ts';
import { BOOKING_ACTIONS, BOOKING_STATES, nextStates, transition } from './booking-state.ts';

describe('booking transition table', () => {
  it('reaches every one of the 13 states of the spec', () => {
    const targets = new Set(Object.values(BOOKING_ACTIONS).map((r) => r.to));
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
    expect(nextStates(facts({ state: 'canceled' }))).toEqual([]);
  });
});
