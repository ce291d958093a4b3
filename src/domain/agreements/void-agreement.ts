import { z } from 'zod';
import { bookingStep } from '../bookings/booking-lifecycle.ts';
import { bookingMachine } from '../bookings/booking-state.ts';
import { readBooking } from '../bookings/get-booking.ts';
import { originOf } from '../events/event.service.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import { found } from '../shared/found.ts';
import { runAction } from '../shared/lifecycle.ts';
import { defineOperation } from '../shared/operation.ts';
import { agreementLifecycle, agreementMachine } from './agreement-state.ts';
import { AGREEMENT_EXAMPLE, bookingIdArg } from './create-agreement.ts';
import { currentAgreement } from './current-agreement.ts';

export const voidAgreement = defineOperation({
  name: 'voidAgreement',
  summary: 'Void an agreement',
  description:
    "Voids the booking's current agreement (draft, sent or signed) with a reason (agreement.voided): it no longer applies, its signing links stop working (403 agreement_link_invalid), and it stays readable as it was, with voided_at and void_reason. The booking's agreement gate is pending again (unless the business does not require agreements), so a booking that was ready_for_pickup goes back to confirmed (booking.confirmed) until a new agreement is signed: POST /v1/bookings/{booking_id}/agreement makes a new one (a new id, version 1). Allowed before pickup, or while the booking is in problem; voiding a voided agreement is 409 invalid_state_transition.",
  access: { permission: 'agreements:write' },
  args: z.object({
    bookingId: bookingIdArg,
    input: z
      .object({ reason: z.string().trim().min(1).max(500).meta({ description: 'Why the agreement no longer applies, kept on it as void_reason.' }) })
      .meta({ id: 'VoidAgreementInput' }),
  }),
  errors: [CommonErrors.invalidStateTransition],
  example: { ...AGREEMENT_EXAMPLE, input: { reason: 'The renter asked for a second driver; a new agreement follows.' } },
  async run(ctx, args, { query }) {
    const booking = await readBooking(ctx, args.bookingId);
    const agreement = await found(currentAgreement(ctx.db, booking.id), 'agreement', booking.id);
    agreementMachine.check(agreement, 'void');
    bookingMachine.check(booking, 'void_agreement');
    const origin = originOf(ctx);
    await ctx.db.$transaction(async (tx) => {
      await runAction(tx, origin, agreementLifecycle, agreement, 'void', { voidedAt: ctx.now(), voidReason: args.input.reason });
      const gated = await bookingStep(tx, origin, booking, 'void_agreement');
      // No longer ready: the gate it met is pending again.
      if (gated.booking.state === 'ready_for_pickup' && bookingMachine.unmetGuards(gated.booking, 'mark_ready').length > 0) await bookingStep(tx, origin, gated.booking, 'gate_regressed');
    });
    return ctx.db.agreement.findUniqueOrThrow({ ...(query as object), where: { id: agreement.id } });
  },
});
