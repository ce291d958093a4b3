import { isEventType } from '../events/event-types.ts';
import { CommonErrors } from './common.errors.ts';
import type { DomainError } from './errors.ts';

/**
 * One engine for every lifecycle (booking, payment, deposit, charge, dispute, identity
 * verification, agreement, insurance, return, file). Each aggregate declares its table in
 * its own `*-state.ts`; the table is checked when it loads, and every state change of a
 * record goes through `check` (src/domain/shared/lifecycle.ts writes it).
 */

/** A guard's verdict: null when it passes, else the reason in words a developer reads. */
export type Guard<F> = (facts: F) => string | null;

export interface UnmetGuard<G extends string> {
  guard: G;
  reason: string;
}

export interface ActionSpec<S extends string, G extends string, F> {
  from: readonly S[];
  /** The state after the action; absent when it changes attributes (a gate) but not the state. */
  to?: S;
  guards?: readonly G[];
  /** Attributes the action writes with it (a booking's gate). */
  set?: Readonly<Record<string, string>>;
  /** Attributes the caller records with the action, the state staying (a pickup's odometer). */
  records?: readonly string[];
  /** The event recorded with the change, carrying the record as its object. */
  event?: string;
  /** The action in words for messages ("verify the identity of"); default: its name. */
  verb?: string;
  /** How unmet guards are answered; by default 409 `invalid_state_transition` with the reasons. */
  refuse?: (unmet: UnmetGuard<G>[], facts: F) => DomainError;
  /** States outside `from` where the action is refused with its own error (a dispute lock). */
  lockedIn?: Partial<Record<S, (facts: F) => DomainError>>;
}

export interface MachineSpec<S extends string, F extends { state: S }, G extends string, A extends string> {
  /** The record's object name, for messages and errors (`booking`, `charge`). */
  object: string;
  states: readonly S[];
  /** States a record may be created in. */
  initial: readonly S[];
  /** States with no way out, by design. Every other state must have one. */
  terminal: readonly S[];
  guards?: Record<G, Guard<F>>;
  actions: Record<A, ActionSpec<S, G, F>>;
}

export interface Machine<S extends string, F extends { state: S }, G extends string, A extends string> {
  readonly object: string;
  readonly states: readonly S[];
  readonly initial: readonly S[];
  readonly actions: Readonly<Record<A, ActionSpec<S, G, F>>>;
  /** The action's rule when it is allowed now; else the error a client gets. */
  check(facts: F, action: A): ActionSpec<S, G, F>;
  can(facts: F, action: A): boolean;
  unmetGuards(facts: F, action: A): UnmetGuard<G>[];
  /** States reachable now, every guard considered (exposed on objects as `next_states`). */
  nextStates(facts: F): S[];
  /** Actions allowed now. */
  nextActions(facts: F): A[];
}

const words = (action: string) => action.replace(/_/g, ' ');

/** Declare a lifecycle table; throws at load when the table is inconsistent. */
export function defineMachine<S extends string, F extends { state: S }, G extends string = never, A extends string = string>(
  spec: MachineSpec<S, F, G, A>,
): Machine<S, F, G, A> {
  validateMachine(spec);
  const guards = (spec.guards ?? {}) as Record<G, Guard<F>>;
  const entries = Object.entries(spec.actions) as [A, ActionSpec<S, G, F>][];

  const unmetGuards = (facts: F, action: A): UnmetGuard<G>[] =>
    (spec.actions[action].guards ?? []).flatMap((guard) => {
      const reason = guards[guard](facts);
      return reason === null ? [] : [{ guard, reason }];
    });

  const allowed = (facts: F, action: A) => spec.actions[action].from.includes(facts.state) && unmetGuards(facts, action).length === 0;

  return {
    object: spec.object,
    states: spec.states,
    initial: spec.initial,
    actions: spec.actions,
    check(facts, action) {
      const rule = spec.actions[action];
      if (!rule.from.includes(facts.state)) {
        const locked = rule.lockedIn?.[facts.state];
        if (locked) throw locked(facts);
        throw CommonErrors.invalidStateTransition(spec.object, facts.state, `Cannot ${rule.verb ?? words(action)} a ${spec.object} in state '${facts.state}'.`);
      }
      const unmet = unmetGuards(facts, action);
      if (unmet.length === 0) return rule;
      if (rule.refuse) throw rule.refuse(unmet, facts);
      throw CommonErrors.invalidStateTransition(spec.object, facts.state, `Cannot ${rule.verb ?? words(action)} the ${spec.object}: ${unmet.map((u) => u.reason).join('; ')}.`);
    },
    can: allowed,
    unmetGuards,
    nextStates(facts) {
      const next = new Set<S>();
      for (const [action, rule] of entries) if (rule.to !== undefined && rule.to !== facts.state && allowed(facts, action)) next.add(rule.to);
      return [...next];
    },
    nextActions(facts) {
      return entries.filter(([action]) => allowed(facts, action)).map(([action]) => action);
    },
  };
}

/**
 * A table is consistent when every state it names is declared, every guard exists, every
 * event is a known event type, every state is reachable from a creation state, and only the
 * declared terminal states are dead ends.
 */
export function validateMachine<S extends string, F extends { state: S }, G extends string, A extends string>(spec: MachineSpec<S, F, G, A>): void {
  const fail = (problem: string) => {
    throw new Error(`${spec.object} state machine: ${problem}`);
  };
  const states = new Set<string>(spec.states);
  const known = (s: string, where: string) => states.has(s) || fail(`${where} names the unknown state '${s}'`);
  if (spec.initial.length === 0) fail('no initial state');
  spec.initial.forEach((s) => known(s, 'initial'));
  spec.terminal.forEach((s) => known(s, 'terminal'));
  const guards = new Set(Object.keys(spec.guards ?? {}));
  const exits = new Map<string, Set<string>>();
  for (const [name, rule] of Object.entries(spec.actions) as [string, ActionSpec<S, G, F>][]) {
    if (rule.from.length === 0) fail(`action '${name}' applies in no state`);
    rule.from.forEach((s) => known(s, `action '${name}'`));
    if (rule.to !== undefined) known(rule.to, `action '${name}'`);
    if (rule.to === undefined && !rule.set && !rule.records?.length) fail(`action '${name}' changes nothing (no 'to', 'set' or 'records')`);
    (rule.guards ?? []).forEach((g) => guards.has(g) || fail(`action '${name}' uses the unknown guard '${g}'`));
    if (rule.event !== undefined && !isEventType(rule.event)) fail(`action '${name}' emits the unknown event type '${rule.event}'`);
    for (const s of Object.keys(rule.lockedIn ?? {})) {
      known(s, `action '${name}' lockedIn`);
      if (rule.from.includes(s as S)) fail(`action '${name}' is both allowed and locked in '${s}'`);
    }
    if (rule.to === undefined) continue;
    for (const s of rule.from) if (s !== rule.to) (exits.get(s) ?? exits.set(s, new Set()).get(s)!).add(rule.to);
  }
  const reachable = new Set<string>(spec.initial);
  for (let frontier = [...spec.initial] as string[]; frontier.length > 0; ) {
    const next: string[] = [];
    for (const s of frontier) for (const t of exits.get(s) ?? []) if (!reachable.has(t)) (reachable.add(t), next.push(t));
    frontier = next;
  }
  const unreachable = spec.states.filter((s) => !reachable.has(s));
  if (unreachable.length) fail(`states not reachable from ${spec.initial.join('/')}: ${unreachable.join(', ')}`);
  for (const s of spec.states) {
    const terminal = spec.terminal.includes(s);
    const hasExit = (exits.get(s)?.size ?? 0) > 0;
    if (terminal && hasExit) fail(`terminal state '${s}' has a way out`);
    if (!terminal && !hasExit) fail(`state '${s}' is a dead end but not declared terminal`);
  }
}
