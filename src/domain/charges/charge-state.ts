import type { ChargeState } from '../../generated/prisma/enums.ts';
import { conflict } from '../shared/errors.ts';

/**
 * The lifecycle of a post-trip charge, as one table like the booking's
 * (src/domain/bookings/booking-state.ts). A charge changes state only through
 * `chargeTransition`; the event named here is recorded with the change.
 */
export interface ChargeFacts {
  state: ChargeState;
  /** Open disputes on any charge of the same booking: they lock post-trip collection (SPEC.md gating rule 4). */
  openDisputes: number;
}

export type ChargeGuardName = 'no_dispute_lock';

export const CHARGE_GUARDS: Record<ChargeGuardName, (c: ChargeFacts) => string | null> = {
  no_dispute_lock: (c) => (c.openDisputes > 0 ? `${c.openDisputes} open dispute(s) on the booking lock collection` : null),
};

export interface ChargeRule {
  from: readonly ChargeState[];
  to: ChargeState;
  guards?: readonly ChargeGuardName[];
  /** Recorded with the charge as its object; the dispute action's event is the dispute's own. */
  event?: string;
}

export const CHARGE_ACTIONS = {
  succeed: { from: ['pending', 'processing', 'failed'], to: 'succeeded', guards: ['no_dispute_lock'], event: 'charge.succeeded' },
  fail: { from: ['pending', 'processing'], to: 'failed', event: 'charge.failed' },
  // A customer may contest a charge before or after it was collected.
  dispute: { from: ['pending', 'processing', 'succeeded', 'failed'], to: 'disputed' },
} as const satisfies Record<string, ChargeRule>;

export type ChargeAction = keyof typeof CHARGE_ACTIONS;

/** Check an action against a charge: its rule, or 409 `invalid_state_transition` naming the state or the lock. */
export function chargeTransition(facts: ChargeFacts, action: ChargeAction): ChargeRule {
  const rule: ChargeRule = CHARGE_ACTIONS[action];
  if (!rule.from.includes(facts.state)) {
    throw conflict('invalid_state_transition', `Cannot ${action} a charge in state '${facts.state}'.`);
  }
  const unmet = (rule.guards ?? []).map((g) => CHARGE_GUARDS[g](facts)).filter((r): r is string => r !== null);
  if (unmet.length) throw conflict('invalid_state_transition', `Cannot ${action} the charge: ${unmet.join('; ')}.`);
  return rule;
}
