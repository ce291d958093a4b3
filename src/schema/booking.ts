import { builder } from '../builder.ts';
import { approveBooking } from '../domain/bookings/approve-booking.ts';
import { BOOKING_FIELDS, bookingGates } from '../domain/bookings/booking.fields.ts';
import { nextStates } from '../domain/bookings/booking-state.ts';
import { cancelBooking } from '../domain/bookings/cancel-booking.ts';
import { createBooking } from '../domain/bookings/create-booking.ts';
import { extendBookingOperation } from '../domain/bookings/extend-booking.ts';
import { updateBookingOperation } from '../domain/bookings/update-booking.ts';
import { getBooking } from '../domain/bookings/get-booking.ts';
import { listBookings } from '../domain/bookings/list-bookings.ts';
import { completeReturn } from '../domain/returns/complete-return.ts';
import { dayRatesField } from './day-rate.ts';
import { enums } from './enums.ts';
import { exposePublicFields } from './fields.ts';
import { operationField } from './operation-field.ts';

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
    dayRates: dayRatesField(t),
    nextStates: t.field({
      type: [enums.BookingState],
      description: 'States the booking can move to now, every guard considered.',
      resolve: (b) => nextStates(b),
    }),
    clientSecret: t.string({
      nullable: true,
      description:
        "In the create answer only (null everywhere else): with a publishable key, it lets a browser read this one booking and start its checkout (X-Client-Secret header or client_secret query parameter). The embedded components' browser booking; keep it in the customer's browser, never in a log or URL you share.",
      resolve: (b) => (b as { clientSecret?: string }).clientSecret ?? null,
    }),
    vehicle: t.relation('vehicle'),
    customer: t.relation('customer'),
    quote: t.relation('quote', { nullable: true }),
    payment: t.relation('payment', { nullable: true }),
    deposit: t.relation('deposit', { nullable: true }),
    charges: t.relation('charges', { description: 'Post-trip charges, newest first.', query: { orderBy: { id: 'desc' } } }),
  }),
});

const booking = operationField(getBooking);
const bookings = operationField(listBookings);
const create = operationField(createBooking);
const cancel = operationField(cancelBooking);
const complete = operationField(completeReturn);
const approve = operationField(approveBooking);
const update = operationField(updateBookingOperation);
const extend = operationField(extendBookingOperation);

builder.queryFields((t) => ({
  booking: booking.prisma(t, 'Booking'),
  bookings: bookings.connection(t, Booking),
}));

builder.mutationFields((t) => ({
  createBooking: create.prisma(t, 'Booking'),
  cancelBooking: cancel.prisma(t, 'Booking'),
  completeReturn: complete.prisma(t, 'Booking'),
  approveBooking: approve.prisma(t, 'Booking'),
  updateBooking: update.prisma(t, 'Booking'),
  extendBooking: extend.prisma(t, 'Booking'),
}));
