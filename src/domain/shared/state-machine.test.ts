import { describe, expect, it } from 'vitest';
import { errorOf } from '../bookings/booking-facts.fixture.ts';
import { DomainError } from './errors.ts';
import { defineMachine } from './state-machine.ts';

type Light = 'red' | 'green' | 'broken';
const table = (actions: Record<string, { from: Light[]; to?: Light; guards?: 'powered'[]; event?: string; set?: Record<string, string> }>, terminal: Light[] = ['broken']) => () =>
  defineMachine<Light, { state: Light; power: boolean }, 'powered'>({
    object: 'light',
    states: ['red', 'green', 'broken'],
    initial: ['red'],
    terminal,
    guards: { powered: (f) => (f.power ? null : 'there is no power') },
    actions,
  });

describe('defineMachine: a table is checked when it loads', () => {
  const good = { go: { from: ['red'] as Light[], to: 'green' as Light, guards: ['powered' as const] }, stop: { from: ['green'] as Light[], to: 'red' as Light }, smash: { from: ['red', 'green'] as Light[], to: 'broken' as Light } };

  it('accepts a consistent table', () => {
    expect(table(good)).not.toThrow();
  });

  it('refuses unknown states, guards and event types', () => {
    expect(table({ ...good, fly: { from: ['blue' as Light], to: 'red' } })).toThrow(/unknown state 'blue'/);
    expect(table({ ...good, go: { from: ['red'], to: 'green', guards: ['lit' as 'powered'] } })).toThrow(/unknown guard 'lit'/);
    expect(table({ ...good, stop: { from: ['green'], to: 'red', event: 'light.stopped' } })).toThrow(/unknown event type 'light.stopped'/);
  });

  it('refuses unreachable states, undeclared dead ends and terminal states with a way out', () => {
    expect(table({ go: good.go, stop: good.stop })).toThrow(/not reachable from red: broken/);
    expect(table({ go: good.go, smash: { from: ['red'], to: 'broken' } })).toThrow(/'green' is a dead end but not declared terminal/);
    expect(table({ ...good, repair: { from: ['broken'], to: 'red' } })).toThrow(/terminal state 'broken' has a way out/);
  });

  it('refuses an action that changes nothing', () => {
    expect(table({ ...good, idle: { from: ['red'] } })).toThrow(/'idle' changes nothing/);
  });
});

describe('a machine decides', () => {
  const light = table({
    go: { from: ['red'], to: 'green', guards: ['powered'] },
    stop: { from: ['green'], to: 'red' },
    smash: { from: ['red', 'green'], to: 'broken' },
    paint: { from: ['red', 'green'], set: { color: 'blue' } },
  })();

  it('returns the rule of an allowed action', () => {
    expect(light.check({ state: 'red', power: true }, 'go')).toMatchObject({ to: 'green' });
  });

  it('refuses a wrong state with invalid_state_transition carrying the state', () => {
    const err = errorOf(() => light.check({ state: 'broken', power: true }, 'stop')) as DomainError;
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ type: 'conflict', code: 'invalid_state_transition', status: 409, details: { object: 'light', current_state: 'broken' } });
    expect(err.message).toBe("Cannot stop a light in state 'broken'.");
  });

  it('refuses an unmet guard with its reason', () => {
    expect(errorOf(() => light.check({ state: 'red', power: false }, 'go')).message).toBe('Cannot go the light: there is no power.');
  });

  it('lists next states (guards considered, attribute changes excluded) and next actions', () => {
    expect(light.nextStates({ state: 'red', power: true })).toEqual(['green', 'broken']);
    expect(light.nextStates({ state: 'red', power: false })).toEqual(['broken']);
    expect(light.nextActions({ state: 'red', power: false })).toEqual(['smash', 'paint']);
    expect(light.nextStates({ state: 'broken', power: true })).toEqual([]);
  });
});
