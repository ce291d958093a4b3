import { builder } from '../builder.ts';
import { addReturnPhotos, getReturn, recordReturnMileage, startReturn, submitBookingReturn } from '../domain/returns/return-operations.ts';
import type { ReturnView } from '../domain/returns/return-record.ts';
import { enums } from './enums.ts';
import { operationField } from './operation-field.ts';
import { Mileage } from './sandbox.ts';

const ReturnRef = builder.objectRef<ReturnView>('Return').implement({
  description: "A booking's return: its state, the odometer readings, the mileage object and the photos taken.",
  fields: (t) => ({
    bookingId: t.exposeID('bookingId'),
    state: t.expose('state', { type: enums.ReturnState }),
    mileageOut: t.exposeInt('mileageOut', { nullable: true }),
    mileageIn: t.exposeInt('mileageIn', { nullable: true }),
    mileage: t.field({ type: Mileage, nullable: true, description: 'Once both readings exist.', resolve: (r) => r.mileage }),
    startedAt: t.expose('startedAt', { type: 'DateTime', nullable: true }),
    submittedAt: t.expose('submittedAt', { type: 'DateTime', nullable: true }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true }),
    photos: t.prismaField({
      type: ['TripPhoto'],
      description: 'Photos taken at return, oldest first.',
      resolve: (query, r, _args, ctx) => ctx.domain.db.tripPhoto.findMany({ ...query, where: { bookingId: r.bookingId, stage: 'return' }, orderBy: { id: 'asc' } }),
    }),
    booking: t.prismaField({ type: 'Booking', resolve: (query, r, _args, ctx) => ctx.domain.db.booking.findUniqueOrThrow({ ...query, where: { id: r.bookingId } }) }),
  }),
});

const read = operationField(getReturn);
const mutations = [startReturn, addReturnPhotos, recordReturnMileage, submitBookingReturn].map((operation) => [operation.name, operationField(operation)] as const);

builder.queryFields((t) => ({
  bookingReturn: read.plain(t, ReturnRef),
}));

builder.mutationFields((t) => Object.fromEntries(mutations.map(([name, field]) => [name, field.plain(t, ReturnRef)])));
