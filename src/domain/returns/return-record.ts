import type { Booking, VehicleReturn } from '../../generated/prisma/client.ts';
import type { EventOrigin } from '../events/event.service.ts';
import type { Db } from '../shared/context.ts';
import { newId } from '../shared/ids.ts';
import { runAction } from '../shared/lifecycle.ts';
import { computeMileage, type Mileage } from './mileage.ts';
import { returnLifecycle, returnMachine, type ReturnAction } from './return-state.ts';

/** The booking's return record, made (not_started) on first need. */
export async function returnRecordOf(tx: Db, booking: Booking): Promise<VehicleReturn> {
  const existing = await tx.vehicleReturn.findUnique({ where: { bookingId: booking.id } });
  if (existing) return existing;
  await tx.vehicleReturn.createMany({ data: [{ id: newId('vehicleReturn'), businessId: booking.businessId, livemode: booking.livemode, bookingId: booking.id }], skipDuplicates: true });
  return tx.vehicleReturn.findUniqueOrThrow({ where: { bookingId: booking.id } });
}

/** Take a step of the return record's table (checked: a step it cannot take is 409). */
export async function stepReturn(tx: Db, origin: EventOrigin, booking: Booking, action: ReturnAction, changes: Record<string, unknown> = {}): Promise<VehicleReturn> {
  return runAction(tx, origin, returnLifecycle, await returnRecordOf(tx, booking), action, changes);
}

/** The same step, only when the record can take it (the booking's own table has already decided). */
export async function followReturn(tx: Db, origin: EventOrigin, booking: Booking, action: ReturnAction, changes: Record<string, unknown> = {}): Promise<void> {
  const record = await returnRecordOf(tx, booking);
  if (returnMachine.can(record, action)) await runAction(tx, origin, returnLifecycle, record, action, changes);
}

/** The return as the API shows it. */
export interface ReturnView {
  bookingId: string;
  state: VehicleReturn['state'];
  mileageOut: number | null;
  mileageIn: number | null;
  /** The spec's mileage object, once both readings exist. */
  mileage: Mileage | null;
  startedAt: Date | null;
  submittedAt: Date | null;
  completedAt: Date | null;
}

export function returnView(booking: Booking, record: VehicleReturn | null): ReturnView {
  const mileage =
    booking.mileageOut !== null && booking.mileageIn !== null && booking.mileageIn >= booking.mileageOut
      ? computeMileage({ mileageOut: booking.mileageOut, mileageIn: booking.mileageIn, includedMiles: booking.includedMiles, extraMileFeeCents: booking.extraMileFeeCents, unlimitedMiles: booking.unlimitedMiles })
      : null;
  return {
    bookingId: booking.id,
    state: record?.state ?? 'not_started',
    mileageOut: booking.mileageOut,
    mileageIn: booking.mileageIn,
    mileage,
    startedAt: record?.startedAt ?? null,
    submittedAt: record?.submittedAt ?? null,
    completedAt: record?.completedAt ?? null,
  };
}
