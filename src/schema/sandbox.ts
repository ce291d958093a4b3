import { builder } from '../builder.ts';
import { simulateChargeFailure, simulateChargeSuccess, simulateDispute } from '../domain/sandbox/sandbox-charges.ts';
import { createTestBooking } from '../domain/sandbox/sandbox-bookings.ts';
import {
  simulateAgreementSigned, simulateDepositSecured, simulateIdentityRejected, simulateIdentityVerified, simulateLate,
  simulatePaymentFailure, simulatePaymentSuccess, simulatePickup, simulateReturn,
} from '../domain/sandbox/sandbox-lifecycle.ts';
import { RESET_TABLES, resetSandbox, type SandboxReset } from '../domain/sandbox/sandbox-reset.ts';
import { advanceTestClock, getTestClock, type TestClock } from '../domain/sandbox/sandbox-clock.ts';
import type { BookingSimulation, ChargeSimulation } from '../domain/sandbox/sandbox-simulation.ts';
import type { Mileage as MileageShape } from '../domain/returns/mileage.ts';
import { enums } from './enums.ts';
import { operationField } from './operation-field.ts';

/*
 * Sandbox simulations (the spec's "Sandbox simulation endpoints", the contract's "Sandbox"):
 * test secret keys only. Resolvers delegate to src/domain/sandbox, which runs the production steps.
 */

export const Mileage = builder.objectRef<MileageShape>('Mileage').implement({
  description: "The spec's mileage object: miles_used = in − out; over_miles beyond the included total; fee = over × extra-mile fee.",
  fields: (t) => ({
    mileageOut: t.exposeInt('mileageOut'),
    mileageIn: t.exposeInt('mileageIn'),
    milesUsed: t.exposeInt('milesUsed'),
    includedMiles: t.exposeInt('includedMiles', { nullable: true, description: 'Total for the period; null with unlimited miles.' }),
    overMiles: t.exposeInt('overMiles'),
    extraMileFeeCents: t.exposeInt('extraMileFeeCents'),
    mileageFeeCents: t.exposeInt('mileageFeeCents'),
    unlimitedMiles: t.exposeBoolean('unlimitedMiles'),
  }),
});

const BookingSimulationRef = builder.objectRef<BookingSimulation>('BookingSimulation').implement({
  description: 'What a booking simulation did: the booking, its new state and the event emitted.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The booking.' }),
    state: t.expose('state', { type: enums.BookingState }),
    event: t.exposeString('event', { description: 'The event the simulated step emitted.' }),
    events: t.exposeStringList('events', { description: 'Every event emitted, in order, including steps the booking then took by itself.' }),
    chargeIds: t.exposeIDList('chargeIds', { description: 'Post-trip charges created (a return over the included miles).' }),
    mileage: t.field({ type: Mileage, nullable: true, description: 'On a return with both odometer readings.', resolve: (r) => r.mileage }),
    booking: t.prismaField({
      type: 'Booking',
      resolve: (query, r, _args, ctx) => ctx.domain.db.booking.findUniqueOrThrow({ ...query, where: { id: r.id } }),
    }),
  }),
});

const ChargeSimulationRef = builder.objectRef<ChargeSimulation>('ChargeSimulation').implement({
  description: 'What a charge simulation did: the charge, its new state and the event emitted.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The charge.' }),
    bookingId: t.exposeID('bookingId'),
    state: t.expose('state', { type: enums.ChargeState }),
    event: t.exposeString('event'),
    events: t.exposeStringList('events', { description: 'Every event emitted, in order (a failed charge also flags its booking).' }),
    charge: t.prismaField({
      type: 'Charge',
      resolve: (query, r, _args, ctx) => ctx.domain.db.charge.findUniqueOrThrow({ ...query, where: { id: r.id } }),
    }),
  }),
});

const SandboxResetCounts = builder.objectRef<SandboxReset['deleted']>('SandboxResetCounts').implement({
  description: 'Sandbox rows deleted, per kind.',
  fields: (t) => Object.fromEntries(RESET_TABLES.map((name) => [name, t.exposeInt(name)])),
});

const SandboxResetRef = builder.objectRef<SandboxReset>('SandboxReset').implement({
  description: "The caller's sandbox data was deleted; API keys, team and webhook endpoints stay.",
  fields: (t) => ({
    object: t.exposeString('object', { description: 'Always sandbox_reset.' }),
    livemode: t.exposeBoolean('livemode'),
    deleted: t.field({ type: SandboxResetCounts, resolve: (r) => r.deleted }),
  }),
});

const TestClockRef = builder.objectRef<TestClock>('TestClock').implement({
  description: "The business's sandbox time, and what the last advance made due.",
  fields: (t) => ({
    now: t.expose('now', { type: 'DateTime' }),
    offsetSeconds: t.exposeInt('offsetSeconds', { description: 'How far the sandbox runs ahead of real time.' }),
    expiredHolds: t.exposeInt('expiredHolds', { description: 'Unpaid holds the advance expired.' }),
    lateRentals: t.exposeInt('lateRentals', { description: 'Rentals the advance made late.' }),
    retriesDue: t.exposeInt('retriesDue', { description: 'Webhook retries the advance made due now.' }),
  }),
});

const onBooking = [
  simulatePaymentSuccess, simulatePaymentFailure, simulateIdentityVerified, simulateIdentityRejected, simulateAgreementSigned,
  simulateDepositSecured, simulatePickup, simulateLate, simulateReturn,
].map((operation) => [operation.name, operationField(operation)] as const);
const onCharge = [simulateChargeSuccess, simulateChargeFailure].map((operation) => [operation.name, operationField(operation)] as const);
const testBooking = operationField(createTestBooking);
const dispute = operationField(simulateDispute);
const reset = operationField(resetSandbox);
const clock = operationField(getTestClock);
const advance = operationField(advanceTestClock);

builder.queryFields((t) => ({
  testClock: clock.plain(t, TestClockRef),
}));

builder.mutationFields((t) => ({
  testCreateBooking: testBooking.plain(t, BookingSimulationRef),
  ...Object.fromEntries(onBooking.map(([name, field]) => [name, field.plain(t, BookingSimulationRef)])),
  ...Object.fromEntries(onCharge.map(([name, field]) => [name, field.plain(t, ChargeSimulationRef)])),
  testDisputeCharge: dispute.prisma(t, 'Dispute'),
  testReset: reset.plain(t, SandboxResetRef),
  testAdvanceClock: advance.plain(t, TestClockRef),
}));
