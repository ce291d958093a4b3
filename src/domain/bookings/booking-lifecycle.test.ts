import { describe, expect, it } from 'vitest';
import { bookingFacts as facts, errorOf } from './booking-facts.fixture.ts';
import { BOOKING_STATES, bookingMachine, nextStates } from './booking-state.ts';

const transition = bookingMachine.check;
import { automaticAction } from './booking-lifecycle.ts';

describe('start_rental (pickup) from any pre-pickup state', () => {
  it('answers booking_not_ready, not invalid_state_transition, before the booking is ready, listing what is missing', () => {
    const err = errorOf(() => transition(facts({ state: 'pending_payment', paymentGate: 'pending', depositGate: 'pending', identityGate: 'pending' }), 'start_rental'));
    expect(err).toMatchObject({ type: 'invalid_request', code: 'booking_not_ready' });
    expect(err.message).toContain('payment is pending');
    expect(err.message).toContain('security deposit is pending');
    expect(err.message).toContain('identity verification is pending');
    expect(err.message).toContain("not confirmed (it is 'pending_payment')");
  });

  it('needs the booking confirmed even when every gate is met', () => {
    const err = errorOf(() => transition(facts({ state: 'booked' }), 'start_rental'));
    expect(err).toMatchObject({ code: 'booking_not_ready' });
    expect(err.message).toContain("not confirmed (it is 'booked')");
  });

  it('refuses a confirmed booking whose deposit is not secured with booking_not_ready naming only that gate', () => {
    const err = errorOf(() => transition(facts({ state: 'confirmed', depositGate: 'pending' }), 'start_rental'));
    expect(err.message).toBe('The booking is not ready: security deposit is pending.');
  });

  it('starts from ready_for_pickup (and confirmed with every gate met)', () => {
    expect(transition(facts(), 'start_rental').to).toBe('active');
    expect(transition(facts({ state: 'confirmed' }), 'start_rental').to).toBe('active');
  });

  it('stays a wrong-state conflict after pickup and in terminal states', () => {
    for (const state of ['active', 'late', 'return_in_review', 'completed', 'canceled', 'refunded', 'problem'] as const) {
      expect(errorOf(() => transition(facts({ state }), 'start_rental'))).toMatchObject({ type: 'conflict', code: 'invalid_state_transition' });
    }
  });

  it('offers active as a next state only when pickup would succeed', () => {
    expect(nextStates(facts({ state: 'booked' }))).not.toContain('active');
    expect(nextStates(facts({ state: 'ready_for_pickup', depositGate: 'pending' }))).not.toContain('active');
    expect(nextStates(facts())).toContain('active');
  });
});

describe('automaticAction: what the booking does by itself', () => {
  it('confirms a booked booking when approval is automatic, not when it is manual', () => {
    expect(automaticAction(facts({ state: 'booked' }), 'automatic')).toBe('confirm');
    expect(automaticAction(facts({ state: 'booked' }), 'manual')).toBeNull();
  });

  it('marks a confirmed booking ready once every gate is met', () => {
    expect(automaticAction(facts({ state: 'confirmed' }), 'manual')).toBe('mark_ready');
    expect(automaticAction(facts({ state: 'confirmed', agreementGate: 'pending' }), 'automatic')).toBeNull();
    expect(automaticAction(facts({ state: 'confirmed', identityGate: 'failed' }), 'automatic')).toBeNull();
  });

  it('resumes a booking in problem before pickup once it is paid and its identity verified, else leaves it for a person', () => {
    expect(automaticAction(facts({ state: 'problem' }), 'manual')).toBe('resume');
    expect(automaticAction(facts({ state: 'problem', identityGate: 'not_required' }), 'automatic')).toBe('resume');
    expect(automaticAction(facts({ state: 'problem', identityGate: 'failed' }), 'automatic')).toBeNull();
    expect(automaticAction(facts({ state: 'problem', paymentGate: 'failed' }), 'automatic')).toBeNull();
    expect(automaticAction(facts({ state: 'problem', paymentGate: 'pending' }), 'automatic')).toBeNull();
    expect(automaticAction(facts({ state: 'problem', pickedUpAt: new Date() }), 'automatic')).toBeNull();
  });

  it('does nothing in any other state', () => {
    for (const state of BOOKING_STATES.filter((s) => s !== 'booked' && s !== 'confirmed')) {
      expect(automaticAction(facts({ state, pickedUpAt: new Date() }), 'automatic')).toBeNull();
    }
  });
});
