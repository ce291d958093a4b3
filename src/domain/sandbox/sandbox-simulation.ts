import { z } from 'zod';
import type { Booking, Charge } from '../../generated/prisma/client.ts';
import type { BookingState, ChargeState } from '../../generated/prisma/enums.ts';
import type { Permission } from '../access/permissions.ts';
import type { BookingOutcome } from '../bookings/booking-lifecycle.ts';
import { readBooking } from '../bookings/get-booking.ts';
import type { ChargeOutcome } from '../charges/charge-outcomes.ts';
import { originOf, type EventOrigin } from '../events/event.service.ts';
import { EVENT_CATALOGUE, isEventType } from '../events/event-types.ts';
import type { Mileage } from '../returns/mileage.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import type { Db, DomainContext } from '../shared/context.ts';
import type { ErrorEntry } from '../shared/errors.ts';
import { found } from '../shared/found.ts';
import type { CallEffect } from '../shared/idempotent-calls.ts';
import { defineOperation, type Operation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';

/**
 * The answer of a booking simulation (the contract's "Sandbox"): the booking's id and new
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

export function chargeSimulation(outcome: ChargeOutcome): ChargeSimulation {
  return { id: outcome.charge.id, bookingId: outcome.charge.bookingId, state: outcome.charge.state, event: outcome.events[0], events: outcome.events };
}

const EXAMPLE_BOOKING = 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x';
const EXAMPLE_CHARGE = 'chg_01jd3m4k5n6p7q8r9s0t1v2w3x';

/** Run one simulated step on a booking of the caller's sandbox, in one transaction. */
export async function onBooking<T>(ctx: DomainContext, bookingId: string, step: (tx: Db, origin: EventOrigin, booking: Booking) => Promise<T>): Promise<T> {
  const booking = await readBooking(ctx, bookingId);
  return ctx.db.$transaction((tx) => step(tx, originOf(ctx), booking));
}

/** The same for a post-trip charge. */
export async function onCharge<T>(ctx: DomainContext, chargeId: string, step: (tx: Db, origin: EventOrigin, charge: Charge) => Promise<T>): Promise<T> {
  const charge = await found(ctx.db.charge.findUnique({ where: { id: chargeId } }), 'charge', chargeId);
  return ctx.db.$transaction((tx) => step(tx, originOf(ctx), charge));
}

interface SimulationSpec<I extends z.ZodObject | null, R> {
  name: string;
  summary: string;
  description: string;
  permission: Permission;
  /** The optional body (`input`). */
  input: I;
  /** A typical body (domain names), for the OpenAPI document. */
  inputExample?: I extends z.ZodObject ? z.input<I> : never;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  errors?: readonly ErrorEntry<any>[];
  run(ctx: DomainContext, id: string, input: I extends z.ZodObject ? z.output<I> | null | undefined : undefined): Promise<R>;
  /** The answer of a retry whose first run committed (OperationSpec.replay); a booking simulation answers its booking and events by default. */
  replay?(ctx: DomainContext, id: string, effect: CallEffect): Promise<R | undefined>;
}

/**
 * The events a call emitted (rows it created), in the order it emitted them: for a booking,
 * every one of the booking's (the simulated step's own first, say `identity.verified`, then
 * the steps the booking took by itself), as its answer lists them; for a charge, the charge's.
 */
async function emitted(ctx: DomainContext, effect: CallEffect, about: { booking: string } | { charge: true }): Promise<string[]> {
  const ids = effect.created.Event ?? [];
  if (ids.length === 0) return [];
  const rows = await ctx.db.event.findMany({ where: { id: { in: ids } }, select: { type: true, bookingId: true }, orderBy: { id: 'asc' } });
  return rows
    .filter((r) => isEventType(r.type) && ('booking' in about ? r.bookingId === about.booking : EVENT_CATALOGUE[r.type].object === 'charge'))
    .map((r) => r.type);
}

/**
 * A booking simulation's answer for a retry whose first run committed: the booking as it is,
 * the events that run emitted about it, the charges it created, and the mileage `mileageOf` reads.
 */
export async function replayedBookingSimulation(ctx: DomainContext, bookingId: string, effect: CallEffect, mileageOf: (booking: Booking) => Mileage | null = () => null): Promise<BookingSimulation | undefined> {
  const booking = await ctx.db.booking.findUnique({ where: { id: bookingId } });
  const events = await emitted(ctx, effect, { booking: bookingId });
  if (!booking || events.length === 0) return undefined;
  return { id: booking.id, state: booking.state, event: events[0], events, chargeIds: effect.created.Charge ?? [], mileage: mileageOf(booking) };
}

/** The same for a charge simulation. */
export async function replayedChargeSimulation(ctx: DomainContext, chargeId: string, effect: CallEffect): Promise<ChargeSimulation | undefined> {
  const charge = await ctx.db.charge.findUnique({ where: { id: chargeId } });
  const events = await emitted(ctx, effect, { charge: true });
  if (!charge || events.length === 0) return undefined;
  return { id: charge.id, bookingId: charge.bookingId, state: charge.state, event: events[0], events };
}

/** A sandbox simulation on a booking (/v1/test/bookings/{id}/...): test secret keys only. */
export function bookingSimulationOperation<I extends z.ZodObject | null>(spec: SimulationSpec<I, BookingSimulation | never>): Operation {
  return simulation('bookingId', 'The test booking (bk_...).', EXAMPLE_BOOKING, { replay: (ctx, id, effect) => replayedBookingSimulation(ctx, id, effect), ...spec });
}

/** A sandbox simulation on a charge (/v1/test/charges/{id}/...). */
export function chargeSimulationOperation<I extends z.ZodObject | null, R>(spec: SimulationSpec<I, R>): Operation {
  return simulation('chargeId', 'The test charge (chg_...).', EXAMPLE_CHARGE, spec);
}

function simulation<I extends z.ZodObject | null, R>(key: 'bookingId' | 'chargeId', description: string, example: string, spec: SimulationSpec<I, R>): Operation {
  const args = z.object({ [key]: id(description), ...(spec.input ? { input: spec.input.nullish() } : {}) });
  return defineOperation({
    name: spec.name,
    summary: spec.summary,
    description: `Sandbox: ${spec.description}`,
    access: { permission: spec.permission, sandbox: true },
    args,
    errors: [CommonErrors.invalidStateTransition, ...(spec.errors ?? [])],
    example: { [key]: example, ...(spec.inputExample ? { input: spec.inputExample } : {}) },
    run: (ctx, parsed) => spec.run(ctx, (parsed as Record<string, string>)[key], (parsed as { input?: never }).input as never),
    ...(spec.replay ? { replay: (ctx: DomainContext, parsed: Record<string, unknown>, _extras: unknown, effect: CallEffect) => spec.replay!(ctx, parsed[key] as string, effect) } : {}),
  }) as unknown as Operation;
}
