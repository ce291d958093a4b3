import type { Booking, Charge } from '../../generated/prisma/client.ts';
import type { BookingState, ChargeState } from '../../generated/prisma/enums.ts';
import { authorizeSandbox, type Permission } from '../access/permissions.ts';
import type { BookingOutcome } from '../bookings/booking-lifecycle.ts';
import { getBooking } from '../bookings/booking.service.ts';
import type { ChargeOutcome } from '../charges/charge-outcomes.ts';
import { originOf, type EventOrigin } from '../events/event.service.ts';
import type { Mileage } from '../returns/mileage.ts';
import { scope, type Db, type DomainContext } from '../shared/context.ts';
import { resourceMissing } from '../shared/errors.ts';

/**
 * The answer of a booking simulation (CONTRACT.md "Sandbox"): the booking's id and new
 * state, the event the simulated step emitted, then every event in order (the steps the
 * booking took by itself after it included), created charges and the mileage.
 */
export interface BookingSimulation {
  id: string;
  state: BookingState;
  event: string;
  events: string[];
  chargeIds: string[];
  mileage: Mileage | null;
}

/** The answer of a charge simulation: the charge's id, new state and event. */
export interface ChargeSimulation {
  id: string;
  /** The charge's booking (it also files the call in the booking's timeline). */
  bookingId: string;
  state: ChargeState;
  event: string;
  events: string[];
}

export function bookingSimulation(outcome: BookingOutcome & { chargeIds?: string[]; mileage?: Mileage | null }): BookingSimulation {
  return {
    id: outcome.booking.id,
    state: outcome.booking.state,
    event: outcome.events[0],
    events: outcome.events,
    chargeIds: outcome.chargeIds ?? [],
    mileage: outcome.mileage ?? null,
  };
}

/**
 * Run one simulated step on a booking of the caller's sandbox: test secret key only, the
 * booking read like any read (unknown or foreign ids are 404), the step in one transaction.
 */
export async function simulateOnBooking<T extends BookingOutcome>(
  ctx: DomainContext,
  bookingId: string,
  permission: Permission,
  step: (tx: Db, origin: EventOrigin, booking: Booking) => Promise<T>,
): Promise<T> {
  authorizeSandbox(ctx.principal, permission);
  const booking = await getBooking(ctx, bookingId);
  return ctx.prisma.$transaction((tx) => step(tx, originOf(ctx), booking));
}

/** The same for a post-trip charge. */
export async function simulateOnCharge<T>(
  ctx: DomainContext,
  chargeId: string,
  permission: Permission,
  step: (tx: Db, origin: EventOrigin, charge: Charge) => Promise<T>,
): Promise<T> {
  authorizeSandbox(ctx.principal, permission);
  const charge = await ctx.prisma.charge.findFirst({ where: { id: chargeId, ...scope(ctx) } });
  if (!charge) throw resourceMissing('charge', chargeId);
  return ctx.prisma.$transaction((tx) => step(tx, originOf(ctx), charge));
}

export function chargeSimulation(outcome: ChargeOutcome): ChargeSimulation {
  return { id: outcome.charge.id, bookingId: outcome.charge.bookingId, state: outcome.charge.state, event: outcome.events[0], events: outcome.events };
}
