import { randomInt } from 'node:crypto';
import { z } from 'zod';
import type { Booking, VehicleAccess } from '../../generated/prisma/client.ts';
import type { BookingState } from '../../generated/prisma/enums.ts';
import { BookingErrors } from '../bookings/booking.errors.ts';
import { readBooking } from '../bookings/get-booking.ts';
import { originOf } from '../events/event.service.ts';
import { pickupReadiness } from '../pickup/pickup.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import type { DomainContext } from '../shared/context.ts';
import { newId } from '../shared/ids.ts';
import { runAction } from '../shared/lifecycle.ts';
import { answersAs, defineOperation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import { accessLifecycle } from './access-state.ts';

const ACCESS_METHODS = ['in_person', 'key_handoff', 'lockbox', 'keypad', 'smart_lock'] as const;
const CODED_METHODS: readonly string[] = ['lockbox', 'keypad', 'smart_lock'];
/** While the vehicle is promised or out; after that access is history. */
const OPEN_BOOKING_STATES: readonly BookingState[] = ['pending_payment', 'checkout_started', 'payment_pending', 'booked', 'confirmed', 'ready_for_pickup', 'active', 'late'];
/** Where released credentials are shown: from readiness until the vehicle is back. */
const SHOWN_IN: readonly BookingState[] = ['ready_for_pickup', 'active', 'late'];

/** A booking's vehicle access as the API shows it: the code and instructions only while released and the rental is on. */
export interface AccessView {
  bookingId: string;
  state: VehicleAccess['state'] | 'not_configured';
  method: string | null;
  accessCode: string | null;
  instructions: string | null;
  releasedAt: Date | null;
  revokedAt: Date | null;
}

function accessView(booking: Booking, access: VehicleAccess | null): AccessView {
  const shown = access?.state === 'released' && SHOWN_IN.includes(booking.state);
  return {
    bookingId: booking.id,
    state: access?.state ?? 'not_configured',
    method: access?.method ?? null,
    accessCode: shown ? access!.accessCode : null,
    instructions: shown ? access!.instructions : null,
    releasedAt: access?.releasedAt ?? null,
    revokedAt: access?.revokedAt ?? null,
  };
}

async function accessOf(ctx: DomainContext, bookingId: string) {
  const booking = await readBooking(ctx, bookingId);
  return { booking, access: await ctx.db.vehicleAccess.findUnique({ where: { bookingId: booking.id } }) };
}

function requireOpenBooking(booking: Booking) {
  if (!OPEN_BOOKING_STATES.includes(booking.state)) {
    throw CommonErrors.invalidStateTransition('booking', booking.state, `The vehicle access of a booking in state '${booking.state}' can no longer change.`);
  }
}

const bookingId = id('The booking (bk_...).');
const EXAMPLE = { bookingId: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x' };

export const getVehicleAccess = defineOperation({
  name: 'vehicleAccess',
  summary: 'Retrieve access configuration',
  description:
    "How the customer gets into the vehicle: the method, and, only once released and while the rental is on (ready_for_pickup, active, late), the access code and instructions. Before release and after revocation or the return they are null; they never appear in events.",
  access: { permission: 'vehicle_access:read' },
  args: z.object({ bookingId }),
  errors: [],
  example: EXAMPLE,
  async run(ctx, args): Promise<AccessView> {
    const { booking, access } = await accessOf(ctx, args.bookingId);
    return accessView(booking, access);
  },
});

export const configureVehicleAccess = defineOperation({
  name: 'configureVehicleAccess',
  summary: 'Update access configuration',
  description:
    "Sets how the customer will get in: method (in_person, key_handoff, lockbox, keypad, smart_lock), access_code (for lockbox, keypad and smart_lock; a 6-digit code is made when none is given) and instructions. Kept hidden until released. Changing it while released is 409: revoke first.",
  access: { permission: 'vehicle_access:write' },
  args: z.object({
    bookingId,
    input: z
      .object({
        method: z.enum(ACCESS_METHODS).meta({ id: 'VehicleAccessMethod', description: 'How the customer gets in.' }),
        accessCode: z.string().regex(/^[A-Za-z0-9-]{4,32}$/, 'expected 4 to 32 letters, digits or dashes').nullish().meta({ description: 'The code to hand over on release (made when a coded method has none).' }),
        instructions: z.string().trim().min(1).max(2000).nullish().meta({ description: 'Where the vehicle is and how to get in, handed over on release.' }),
      })
      .meta({ id: 'VehicleAccessInput' }),
  }),
  errors: [CommonErrors.invalidStateTransition],
  example: { ...EXAMPLE, input: { method: 'lockbox', instructions: 'Lockbox on the garage door, bay 4.' } },
  replay: answersAs(getVehicleAccess),
  async run(ctx, args): Promise<AccessView> {
    const { booking, access } = await accessOf(ctx, args.bookingId);
    requireOpenBooking(booking);
    const { method, instructions } = args.input;
    const accessCode = args.input.accessCode ?? (CODED_METHODS.includes(method) ? String(randomInt(0, 1_000_000)).padStart(6, '0') : null);
    const changes = { method, accessCode, instructions: instructions ?? null, revokedAt: null };
    const saved = await ctx.db.$transaction(async (tx) => {
      if (!access) return tx.vehicleAccess.create({ data: { id: newId('vehicleAccess'), businessId: booking.businessId, livemode: booking.livemode, bookingId: booking.id, ...changes } });
      return runAction(tx, originOf(ctx), accessLifecycle, access, 'configure', changes);
    });
    return accessView(booking, saved);
  },
});

export const releaseVehicleAccess = defineOperation({
  name: 'releaseVehicleAccess',
  summary: 'Release access when permitted',
  description:
    "Hands the access code and instructions to the customer's side: only once every readiness gate is met (400 booking_not_ready listing the unmet ones, the pickup window included; never bypassed) or the rental is under way. Needs a configured access (409 otherwise).",
  access: { permission: 'vehicle_access:write' },
  args: z.object({ bookingId }),
  errors: [CommonErrors.invalidStateTransition, BookingErrors.notReady],
  example: EXAMPLE,
  replay: answersAs(getVehicleAccess),
  async run(ctx, args): Promise<AccessView> {
    const { booking, access } = await accessOf(ctx, args.bookingId);
    requireOpenBooking(booking);
    if (!access) throw CommonErrors.invalidStateTransition('vehicle_access', 'not_configured', 'Configure the vehicle access first (POST /v1/bookings/{id}/vehicle-access).');
    if (booking.state !== 'active' && booking.state !== 'late') {
      const unmet = (await pickupReadiness(ctx, booking)).gates.filter((g) => g.missing !== null);
      if (unmet.length) throw BookingErrors.notReady(unmet.map((g) => ({ gate: g.name, reason: g.missing! })));
    }
    const released = await ctx.db.$transaction((tx) => runAction(tx, originOf(ctx), accessLifecycle, access, 'release', { releasedAt: ctx.now(), revokedAt: null }));
    return accessView(booking, released);
  },
});

export const revokeVehicleAccess = defineOperation({
  name: 'revokeVehicleAccess',
  summary: 'Revoke released access',
  description: 'Takes released access back: the code and instructions are no longer shown. Change the code (POST .../vehicle-access) before releasing again.',
  access: { permission: 'vehicle_access:write' },
  args: z.object({ bookingId }),
  errors: [CommonErrors.invalidStateTransition],
  example: EXAMPLE,
  replay: answersAs(getVehicleAccess),
  async run(ctx, args): Promise<AccessView> {
    const { booking, access } = await accessOf(ctx, args.bookingId);
    if (!access) throw CommonErrors.invalidStateTransition('vehicle_access', 'not_configured', 'There is no vehicle access to revoke.');
    const revoked = await ctx.db.$transaction((tx) => runAction(tx, originOf(ctx), accessLifecycle, access, 'revoke', { revokedAt: ctx.now() }));
    return accessView(booking, revoked);
  },
});
