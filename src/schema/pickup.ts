import { builder } from '../builder.ts';
import { addPickupPhotos, completePickup, getPickupReadiness, recordPickupMileage } from '../domain/pickup/pickup-operations.ts';
import type { Pickup, PickupReadiness, ReadinessGate } from '../domain/pickup/pickup.ts';
import { enums } from './enums.ts';
import { operationField } from './operation-field.ts';

builder.prismaObject('TripPhoto', {
  description: 'A photo of the vehicle at pickup or return: an uploaded image in one slot.',
  fields: (t) => ({
    slot: t.expose('slot', { type: enums.PhotoSlot }),
    fileId: t.exposeID('fileId'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    file: t.relation('file'),
  }),
});

const ReadinessGateRef = builder.objectRef<ReadinessGate>('ReadinessGate').implement({
  description: 'One condition of starting the rental.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'payment, identity, agreement, deposit, insurance, confirmation or pickup_window.' }),
    status: t.exposeString('status', { description: 'satisfied, not_required, pending or failed.' }),
    missing: t.exposeString('missing', { nullable: true, description: 'What the gate waits for; null when met.' }),
  }),
});

const PickupReadinessRef = builder.objectRef<PickupReadiness>('PickupReadiness').implement({
  description: 'Whether the rental can start now, gate by gate.',
  fields: (t) => ({
    bookingId: t.exposeID('bookingId'),
    ready: t.exposeBoolean('ready'),
    opensAt: t.expose('opensAt', { type: 'DateTime', description: 'When the pickup window opens.' }),
    gates: t.field({ type: [ReadinessGateRef], resolve: (r) => r.gates }),
  }),
});

const PickupRef = builder.objectRef<Pickup>('Pickup').implement({
  description: "A booking's pickup record: the odometer, when the rental started, the photos taken.",
  fields: (t) => ({
    bookingId: t.exposeID('bookingId'),
    mileageOut: t.exposeInt('mileageOut', { nullable: true }),
    pickedUpAt: t.expose('pickedUpAt', { type: 'DateTime', nullable: true }),
    photos: t.prismaField({
      type: ['TripPhoto'],
      description: 'Photos taken at pickup, oldest first.',
      resolve: (query, p, _args, ctx) => ctx.domain.db.tripPhoto.findMany({ ...query, where: { bookingId: p.bookingId, stage: 'pickup' }, orderBy: { id: 'asc' } }),
    }),
    booking: t.prismaField({ type: 'Booking', resolve: (query, p, _args, ctx) => ctx.domain.db.booking.findUniqueOrThrow({ ...query, where: { id: p.bookingId } }) }),
  }),
});

const readiness = operationField(getPickupReadiness);
const photos = operationField(addPickupPhotos);
const mileage = operationField(recordPickupMileage);
const complete = operationField(completePickup);

builder.queryFields((t) => ({
  pickupReadiness: readiness.plain(t, PickupReadinessRef),
}));

builder.mutationFields((t) => ({
  addPickupPhotos: photos.plain(t, PickupRef),
  recordPickupMileage: mileage.plain(t, PickupRef),
  completePickup: complete.prisma(t, 'Booking'),
}));
