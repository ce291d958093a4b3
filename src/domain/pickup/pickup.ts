import { z } from 'zod';
import type { Booking } from '../../generated/prisma/client.ts';
import { PhotoSlot } from '../../generated/prisma/enums.ts';
import { loadSettings } from '../business/business-settings.ts';
import { readinessGates } from '../bookings/booking-state.ts';
import { claimUploadedFiles } from '../files/file-usage.ts';
import type { Db, DomainContext } from '../shared/context.ts';
import { newId } from '../shared/ids.ts';
import { id } from '../shared/validation.ts';

/** A photo of the vehicle at pickup or return, as operations take it. */
export const tripPhotosInput = z
  .object({
    photos: z
      .array(
        z.object({
          slot: z.enum(Object.values(PhotoSlot) as [PhotoSlot, ...PhotoSlot[]]).meta({ id: 'PhotoSlot', description: 'Which view of the vehicle.' }),
          fileId: id('An uploaded image (file_...).'),
        }).meta({ id: 'TripPhotoInput' }),
      )
      .min(1)
      .max(20)
      .meta({ description: 'Photos by slot (front, rear, driver_side, passenger_side, interior, odometer, damage_detail), at most 20 at a time.' }),
  })
  .meta({ id: 'TripPhotosInput' });

export const odometer = (description: string) => z.number().int().min(0).max(10_000_000).meta({ description });

/** A readiness gate of `GET .../pickup-readiness`. */
export interface ReadinessGate {
  name: string;
  status: string;
  missing: string | null;
}

export interface PickupReadiness {
  bookingId: string;
  ready: boolean;
  /** When the pickup window opens (pickup_rules.earliest_minutes_before_start before start_at). */
  opensAt: Date;
  gates: ReadinessGate[];
}

/**
 * Whether the rental can start now: the booking's gates (payment, identity, agreement,
 * deposit, insurance, confirmation, from its state table) and the pickup window of the
 * business's pickup_rules.
 */
export async function pickupReadiness(ctx: DomainContext, booking: Booking): Promise<PickupReadiness> {
  const { settings } = await loadSettings(ctx);
  const opensAt = new Date(booking.startAt.getTime() - settings.pickup_rules.earliest_minutes_before_start * 60_000);
  const open = ctx.now() >= opensAt;
  const window: ReadinessGate = {
    name: 'pickup_window',
    status: open ? 'satisfied' : 'pending',
    missing: open ? null : `the pickup window opens at ${opensAt.toISOString()}, ${settings.pickup_rules.earliest_minutes_before_start} minutes before start_at`,
  };
  const gates = [...readinessGates(booking), window];
  return { bookingId: booking.id, ready: gates.every((g) => g.missing === null), opensAt, gates };
}

/** The pickup record of a booking: the odometer, when it started, and the photos taken. */
export interface Pickup {
  bookingId: string;
  mileageOut: number | null;
  pickedUpAt: Date | null;
}

export const pickupOf = (booking: Booking): Pickup => ({ bookingId: booking.id, mileageOut: booking.mileageOut, pickedUpAt: booking.pickedUpAt });

/** Save photos of one stage of the trip, each an uploaded file of the caller (in the caller's transaction). */
export async function recordTripPhotos(tx: Db, booking: Booking, stage: 'pickup' | 'return', photos: { slot: PhotoSlot; fileId: string }[]) {
  await claimUploadedFiles(tx, photos.map((p) => p.fileId), (fileId) => `photos.${photos.findIndex((p) => p.fileId === fileId)}.file_id`);
  await tx.tripPhoto.createMany({
    data: photos.map((p) => ({ id: newId('tripPhoto'), businessId: booking.businessId, livemode: booking.livemode, bookingId: booking.id, stage, slot: p.slot, fileId: p.fileId })),
  });
}
