import { describe, expect, it } from 'vitest';
import { errorOf } from '../bookings/booking-facts.fixture.ts';
import { CHARGE_ACTIONS, chargeTransition, type ChargeFacts } from './charge-state.ts';

const facts = (overrides: Partial<ChargeFacts> = {}): ChargeFacts => ({ state: 'pending', openDisputes: 0, ...overrides });

describe('charge transition table', () => {
  it('collects a pending charge, emitting charge.succeeded', () => {
    expect(chargeTransition(facts(), 'succeed')).toMatchObject({ to: 'succeeded', event: 'charge.succeeded' });
  });

  it('fails a pending charge, emitting charge.failed, and lets a failed one be collected again', () => {
    expect(chargeTransition(facts(), 'fail')).toMatchObject({ to: 'failed', event: 'charge.failed' });
    expect(chargeTransition(facts({ state: 'failed' }), 'succeed').to).toBe('succeeded');
  });

  it('disputes a charge before or after collection', () => {
    for (const state of ['pending', 'succeeded', 'failed'] as const) expect(chargeTransition(facts({ state }), 'dispute').to).toBe('disputed');
    expect(CHARGE_ACTIONS.dispute).not.toHaveProperty('event');
  });

  it('answers a wrong-state action with invalid_state_transition naming the current state', () => {
    for (const [state, action] of [['succeeded', 'succeed'], ['succeeded', 'fail'], ['disputed', 'succeed'], ['disputed', 'dispute'], ['waived', 'fail']] as const) {
      const err = errorOf(() => chargeTransition(facts({ state }), action));
      expect(err).toMatchObject({ type: 'conflict', code: 'invalid_state_transition' });
      expect(err.message).toContain(`'${state}'`);
    }
  });

  it('refuses collection while a dispute on the booking is open (dispute lock)', () => {
    const err = errorOf(() => chargeTransition(facts({ openDisputes: 1 }), 'succeed'));
    expect(err).toMatchObject({ type: 'conflict', code: 'invalid_state_transition' });
    expect(err.message).toContain('open dispute');
    expect(chargeTransition(facts({ openDisputes: 1 }), 'fail').to).toBe('failed');
  });
});
