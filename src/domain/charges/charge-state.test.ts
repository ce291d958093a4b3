import { describe, expect, it } from 'vitest';
import { errorOf } from '../bookings/booking-facts.fixture.ts';
import { chargeMachine } from './charge-state.ts';

const transition = chargeMachine.check;

describe('charge transition table', () => {
  it('collects a pending charge, emitting charge.succeeded', () => {
    expect(transition({ state: 'pending' }, 'succeed')).toMatchObject({ to: 'succeeded', event: 'charge.succeeded' });
  });

  it('fails a pending charge, emitting charge.failed, and lets a failed one be collected again', () => {
    expect(transition({ state: 'pending' }, 'fail')).toMatchObject({ to: 'failed', event: 'charge.failed' });
    expect(transition({ state: 'failed' }, 'succeed').to).toBe('succeeded');
  });

  it('disputes a charge before or after collection; the dispute emits its own event', () => {
    for (const state of ['pending', 'succeeded', 'failed'] as const) expect(transition({ state }, 'dispute').to).toBe('disputed');
    expect(chargeMachine.actions.dispute).not.toHaveProperty('event');
  });

  it('answers a wrong-state action with invalid_state_transition naming the current state', () => {
    for (const [state, action] of [['succeeded', 'succeed'], ['succeeded', 'fail'], ['disputed', 'dispute'], ['waived', 'fail']] as const) {
      const err = errorOf(() => transition({ state }, action));
      expect(err).toMatchObject({ type: 'conflict', code: 'invalid_state_transition', details: { current_state: state } });
      expect(err.message).toContain(`'${state}'`);
    }
  });
});
