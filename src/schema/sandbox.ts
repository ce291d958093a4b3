import { builder } from '../builder.ts';
import { simulateChargeFailure, simulateChargeSuccess, simulateDispute } from '../domain/sandbox/sandbox-charges.ts';
import { createTestBooking } from '../domain/sandbox/sandbox-bookings.ts';
import {
  simulateAgreementSigned, simulateDepositSecured, simulateIdentityRejected, simulateIdentityVerified, simulateLate,
  simulatePaymentFailure, simulatePaymentSuccess, simulatePickup, simulateReturn,
} from '../domain/sandbox/sandbox-lifecycle.ts';
import { RESET_TABLES, resetSandbox, type SandboxReset } from '../domain/sandbox/sandbox-reset.ts';
import type { BookingSimulation, ChargeSimulation } from '../domain/sandbox/sandbox-simulation.ts';
import type { Mileage as MileageShape } from '../domain/returns/mileage.ts';
import type { DomainContext } from '../domain/shared/context.ts';
import { CustomerInput } from './customer.ts';
import { enums } from './enums.ts';

/*
 * Sandbox simulations (SPEC.md "Sandbox simulation endpoints", CONTRACT.md "Sandbox"): test
 * secret keys only. Resolvers delegate to src/domain/sandbox, which runs the production steps.
 */

const Mileage = builder.objectRef<MileageShape>('Mileage').implement({
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
      resolve: (query, r, _args, ctx) => ctx.domain.prisma.booking.findUniqueOrThrow({ ...query, where: { id: r.id } }),
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
      resolve: (query, r, _args, ctx) => ctx.domain.prisma.charge.findUniqueOrThrow({ ...query, where: { id: r.id } }),
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

const TestBookingInput = builder.inputType('TestBookingInput', {
  description: 'Everything is optional: a vehicle and a customer are made, and the period starts in about an hour for 3 days.',
  fields: (t) => ({
    vehicleId: t.id(),
    customer: t.field({ type: CustomerInput }),
    startAt: t.field({ type: 'DateTime' }),
    endAt: t.field({ type: 'DateTime' }),
    unlimitedMiles: t.boolean(),
  }),
});

const TestPickupInput = builder.inputType('TestPickupInput', { fields: (t) => ({ mileageOut: t.int({ description: 'Odometer at pickup.' }) }) });
const TestReturnInput = builder.inputType('TestReturnInput', { fields: (t) => ({ mileageIn: t.int({ description: 'Odometer at return.' }) }) });
const TestDisputeInput = builder.inputType('TestDisputeInput', { fields: (t) => ({ reason: t.string(), metadata: t.field({ type: 'JSON' }) }) });

builder.mutationFields((t) => {
  const bookingId = () => ({ bookingId: t.arg.id({ required: true }) });
  const chargeId = () => ({ chargeId: t.arg.id({ required: true }) });
  const onBooking = (description: string, run: (ctx: DomainContext, id: string) => Promise<BookingSimulation>) =>
    t.field({ type: BookingSimulationRef, description, args: bookingId(), resolve: (_root, args, ctx) => run(ctx.domain, String(args.bookingId)) });
  const onCharge = (description: string, run: (ctx: DomainContext, id: string) => Promise<ChargeSimulation>) =>
    t.field({ type: ChargeSimulationRef, description, args: chargeId(), resolve: (_root, args, ctx) => run(ctx.domain, String(args.chargeId)) });

  return {
    testCreateBooking: t.field({
      type: BookingSimulationRef,
      description: 'Sandbox: create a test booking (emits booking.created).',
      args: { input: t.arg({ type: TestBookingInput }) },
      resolve: (_root, args, ctx) => createTestBooking(ctx.domain, args.input ?? {}),
    }),
    testSucceedPayment: onBooking('Sandbox: the payment succeeds; the booking is booked, then confirmed and made ready when it can.', simulatePaymentSuccess),
    testFailPayment: onBooking('Sandbox: the card is declined. Always answers the payment_error card_declined, after recording payment.failed.', simulatePaymentFailure),
    testVerifyIdentity: onBooking('Sandbox: the identity is verified.', simulateIdentityVerified),
    testFailIdentity: onBooking('Sandbox: the identity is rejected; the booking needs a human (problem).', simulateIdentityRejected),
    testSignAgreement: onBooking('Sandbox: the rental agreement is signed.', simulateAgreementSigned),
    testSecureDeposit: onBooking('Sandbox: the security deposit is secured.', simulateDepositSecured),
    testStartRental: t.field({
      type: BookingSimulationRef,
      description: 'Sandbox: pickup; the rental starts (booking_not_ready while a gate is unmet).',
      args: { ...bookingId(), input: t.arg({ type: TestPickupInput }) },
      resolve: (_root, args, ctx) => simulatePickup(ctx.domain, String(args.bookingId), args.input ?? {}),
    }),
    testMakeLate: onBooking('Sandbox: the active rental becomes late.', simulateLate),
    testSubmitReturn: t.field({
      type: BookingSimulationRef,
      description: 'Sandbox: the return is submitted for review; over-miles become a mileage charge.',
      args: { ...bookingId(), input: t.arg({ type: TestReturnInput }) },
      resolve: (_root, args, ctx) => simulateReturn(ctx.domain, String(args.bookingId), args.input ?? {}),
    }),
    testSucceedCharge: onCharge('Sandbox: collection of a post-trip charge succeeds.', simulateChargeSuccess),
    testFailCharge: onCharge('Sandbox: collection fails; the booking needs a human (problem).', simulateChargeFailure),
    testDisputeCharge: t.prismaField({
      type: 'Dispute',
      description: 'Sandbox: the customer disputes the charge (emits dispute.created).',
      args: { ...chargeId(), input: t.arg({ type: TestDisputeInput }) },
      resolve: (query, _root, args, ctx) => simulateDispute(ctx.domain, String(args.chargeId), args.input ?? {}, query),
    }),
    testReset: t.field({
      type: SandboxResetRef,
      description: "Sandbox: delete this business's test data so a scenario can be repeated.",
      resolve: (_root, _args, ctx) => resetSandbox(ctx.domain),
    }),
  };
});
