import { builder } from '../builder.ts';
import { BOOKING_FIELDS, bookingGates } from '../domain/bookings/booking.fields.ts';
import { nextStates } from '../domain/bookings/booking-state.ts';
import { cancelBooking, createBooking, getBooking, listBookings } from '../domain/bookings/booking.service.ts';
import { CustomerInput } from './customer.ts';
import { enums } from './enums.ts';
import { exposePublicFields } from './fields.ts';
import { nodeQuery, pageParams, toConnection } from './pagination.ts';

const BookingGates = builder.objectRef<ReturnType<typeof bookingGates>>('BookingGates').implement({
  description: 'Readiness gates: each not_required, pending, satisfied or failed.',
  fields: (t) => ({
    payment: t.expose('payment', { type: enums.GateStatus }),
    identity: t.expose('identity', { type: enums.GateStatus }),
    agreement: t.expose('agreement', { type: enums.GateStatus }),
    deposit: t.expose('deposit', { type: enums.GateStatus }),
    insurance: t.expose('insurance', { type: enums.GateStatus }),
  }),
});

export const Booking = builder.prismaObject('Booking', {
  description: 'The central rental object: customer, vehicle, period, price snapshot, gates and lifecycle state.',
  fields: (t) => ({
    ...(exposePublicFields(t, BOOKING_FIELDS, enums) as {}),
    gates: t.field({ type: BookingGates, resolve: (b) => bookingGates(b) }),
    nextStates: t.field({
      type: [enums.BookingState],
      description: 'States the booking can move to now, every guard considered.',
      resolve: (b) => nextStates(b),
    }),
    vehicle: t.relation('vehicle'),
    customer: t.relation('customer'),
    quote: t.relation('quote', { nullable: true }),
    payment: t.relation('payment', { nullable: true }),
    deposit: t.relation('deposit', { nullable: true }),
    charges: t.relation('charges', { description: 'Post-trip charges, newest first.', query: { orderBy: { id: 'desc' } } }),
  }),
});

const CreateBookingInput = builder.inputType('CreateBookingInput', {
  fields: (t) => ({
    vehicleId: t.id({ required: true }),
    customerId: t.id({ description: 'An existing customer; or pass `customer` to create one.' }),
    customer: t.field({ type: CustomerInput }),
    startAt: t.field({ type: 'DateTime', required: true }),
    endAt: t.field({ type: 'DateTime', required: true }),
    unlimitedMiles: t.boolean(),
    quoteId: t.id({ description: 'An unexpired quote for the same vehicle and period keeps its price.' }),
    metadata: t.field({ type: 'JSON' }),
  }),
});

const CancelBookingInput = builder.inputType('CancelBookingInput', {
  fields: (t) => ({ reason: t.string() }),
});

builder.queryFields((t) => ({
  booking: t.prismaField({
    type: 'Booking',
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => getBooking(ctx.domain, String(args.id), query),
  }),
  bookings: t.connection({
    type: Booking,
    description: 'Bookings, newest first.',
    args: { customerId: t.arg.id() },
    resolve: async (_root, args, ctx, info) =>
      toConnection(await listBookings(ctx.domain, { ...pageParams(args), customerId: args.customerId ? String(args.customerId) : null }, nodeQuery(ctx, info)), args),
  }),
}));

builder.mutationFields((t) => ({
  createBooking: t.prismaField({
    type: 'Booking',
    args: { input: t.arg({ type: CreateBookingInput, required: true }) },
    resolve: (query, _root, args, ctx) => createBooking(ctx.domain, args.input, query),
  }),
  cancelBooking: t.prismaField({
    type: 'Booking',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: CancelBookingInput }) },
    resolve: (query, _root, args, ctx) => cancelBooking(ctx.domain, String(args.id), args.input ?? {}, query),
  }),
}));
