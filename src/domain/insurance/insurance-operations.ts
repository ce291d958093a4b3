import { z } from 'zod';
import { advanceBooking, bookingStep } from '../bookings/booking-lifecycle.ts';
import { bookingMachine } from '../bookings/booking-state.ts';
import { readBooking } from '../bookings/get-booking.ts';
import { originOf, recordEvent } from '../events/event.service.ts';
import { claimUploadedFiles } from '../files/file-usage.ts';
import { FileErrors } from '../files/file.errors.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import { found } from '../shared/found.ts';
import { newId } from '../shared/ids.ts';
import { runAction } from '../shared/lifecycle.ts';
import type { DomainContext } from '../shared/context.ts';
import { defineOperation, type PrismaQuery } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import type { Booking } from '../../generated/prisma/client.ts';
import { loadSettings } from '../business/business-settings.ts';
import { localDay } from '../quotes/pricing.ts';
import { calendarDate } from '../vehicles/pricing-input.ts';
import { coverageGap, insuranceLifecycle, insuranceLifecycleOf, presentInsurance } from './insurance-state.ts';

const bookingId = id('The booking (bk_...).');

/** The rental's last day in the business's time zone: the day of its last moment (a rental ending at midnight ends the day before). */
async function rentalEndsOn(ctx: DomainContext, booking: Booking): Promise<string> {
  const { timeZone } = await loadSettings(ctx);
  return localDay(new Date(booking.endAt.getTime() - 1), timeZone).date;
}

const sentence = (words: string) => words.charAt(0).toUpperCase() + words.slice(1) + '.';
const EXAMPLE = { bookingId: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x' };

export const getInsurance = defineOperation({
  name: 'bookingInsurance',
  summary: 'Retrieve insurance',
  description: "The booking's insurance submission: provider, policy reference, document files, its state (submitted, approved, rejected) and why it was rejected. 404 until one is submitted.",
  access: { permission: 'insurance:read' },
  args: z.object({ bookingId }),
  errors: [],
  example: EXAMPLE,
  async run(ctx, args, { query }) {
    const booking = await readBooking(ctx, args.bookingId);
    return found(ctx.db.insurance.findUnique({ ...query, where: { bookingId: booking.id } }), 'insurance', booking.id);
  },
});

export const submitInsurance = defineOperation({
  name: 'submitInsurance',
  summary: 'Submit insurance',
  description:
    "Records the customer's insurance for review (insurance.submitted): the provider, the policy reference, the last day the coverage is in force (expires_on) and uploaded policy documents. A policy that ends before the rental does (expires_on before the rental's last day, in the business's time zone) is rejected at once (insurance.rejected, with the reason in rejection_reason): the booking's insurance gate fails until a policy that covers the rental is submitted. A rejected submission may be submitted again (the booking's insurance gate is pending again); one under review or approved is 409. Allowed before pickup, or while the booking is in problem.",
  access: { permission: 'insurance:write' },
  args: z.object({
    bookingId,
    input: z
      .object({
        provider: z.string().trim().min(1).max(200).meta({ description: 'The insurer.' }),
        policyRef: z.string().trim().min(1).max(200).meta({ description: 'The policy number.' }),
        documentFileIds: z.array(id('An uploaded file (file_...).')).max(10).nullish().meta({ description: 'Uploaded policy documents (file_...).' }),
        expiresOn: calendarDate("The last day the coverage is in force (YYYY-MM-DD), as the policy states it. A policy that ends before the rental's last day is rejected; without it the reviewer checks the dates.").nullish(),
      })
      .meta({ id: 'InsuranceInput' }),
  }),
  errors: [CommonErrors.invalidStateTransition, FileErrors.notUsable],
  example: { ...EXAMPLE, input: { provider: 'Acme Mutual', policyRef: 'AM-2291-88', expiresOn: '2027-12-31' } },
  async run(ctx, args, { query }) {
    const booking = await readBooking(ctx, args.bookingId);
    bookingMachine.check(booking, 'resubmit_insurance');
    const origin = originOf(ctx);
    const { provider, policyRef } = args.input;
    const expiresOn = args.input.expiresOn ?? null;
    const gap = coverageGap(expiresOn, await rentalEndsOn(ctx, booking));
    const saved = await ctx.db.$transaction(async (tx) => {
      const documentFileIds = await claimUploadedFiles(tx, args.input.documentFileIds ?? [], () => 'document_file_ids');
      const details = { provider, policyRef, documentFileIds, expiresOn, rejectionReason: null };
      const existing = await tx.insurance.findUnique({ where: { bookingId: booking.id } });
      let submitted;
      let gated = booking;
      if (existing) {
        submitted = await runAction(tx, origin, insuranceLifecycle, existing, 'resubmit', details);
        if (booking.insuranceGate === 'failed') gated = (await bookingStep(tx, origin, booking, 'resubmit_insurance')).booking;
      } else {
        submitted = await tx.insurance.create({ data: { id: newId('insurance'), businessId: booking.businessId, livemode: booking.livemode, bookingId: booking.id, ...details } });
        await recordEvent(tx, origin, { type: 'insurance.submitted', bookingId: booking.id, object: presentInsurance(submitted) });
      }
      if (!gap) return submitted;
      // A policy that ends before the rental cannot pass the gate: refused at once, with why.
      const rejected = await runAction(tx, origin, insuranceLifecycle, submitted, 'reject', { rejectionReason: sentence(gap) });
      await bookingStep(tx, origin, gated, 'reject_insurance');
      return rejected;
    });
    return ctx.db.insurance.findUniqueOrThrow({ ...query, where: { id: saved.id } });
  },
});

/** The reviewer's verdict: the insurance and the booking's insurance gate change together. */
async function decide(ctx: DomainContext, bookingIdValue: string, verdict: 'approve' | 'reject', changes: Record<string, unknown>, query: PrismaQuery = {}) {
  const booking = await readBooking(ctx, bookingIdValue);
  const insurance = await found(ctx.db.insurance.findUnique({ where: { bookingId: booking.id } }), 'insurance', booking.id);
  const origin = originOf(ctx);
  // Approval checks the policy against the rental as it is now (its end may have moved since the submission).
  const lifecycle = insuranceLifecycleOf(await rentalEndsOn(ctx, booking));
  await ctx.db.$transaction(async (tx) => {
    await runAction(tx, origin, lifecycle, insurance, verdict, changes);
    const gated = await bookingStep(tx, origin, booking, verdict === 'approve' ? 'approve_insurance' : 'reject_insurance');
    if (verdict === 'approve') await advanceBooking(tx, origin, gated.booking);
  });
  return ctx.db.insurance.findUniqueOrThrow({ ...query, where: { id: insurance.id } });
}

export const approveInsurance = defineOperation({
  name: 'approveInsurance',
  summary: 'Approve insurance',
  description: "Accepts the submitted insurance (insurance.approved): the booking's insurance gate is satisfied, and the booking becomes ready for pickup if nothing else is missing. A policy whose expires_on is before the rental's last day cannot be approved (409 invalid_state_transition, naming both dates): reject it instead.",
  access: { permission: 'insurance:write' },
  args: z.object({ bookingId }),
  errors: [CommonErrors.invalidStateTransition],
  example: EXAMPLE,
  run: (ctx, args, { query }) => decide(ctx, args.bookingId, 'approve', {}, query),
});

export const rejectInsurance = defineOperation({
  name: 'rejectInsurance',
  summary: 'Reject insurance',
  description: "Refuses the submitted insurance (insurance.rejected) with a reason: the booking's insurance gate fails, so the rental cannot start until insurance is submitted again and approved.",
  access: { permission: 'insurance:write' },
  args: z.object({ bookingId, input: z.object({ reason: z.string().trim().min(1).max(500).meta({ description: 'Why, shown on the insurance.' }) }).meta({ id: 'RejectInsuranceInput' }) }),
  errors: [CommonErrors.invalidStateTransition],
  example: { ...EXAMPLE, input: { reason: 'The policy does not cover rental vehicles.' } },
  run: (ctx, args, { query }) => decide(ctx, args.bookingId, 'reject', { rejectionReason: args.input.reason }, query),
});
