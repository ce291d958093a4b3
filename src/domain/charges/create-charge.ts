import { z } from 'zod';
import { readBooking } from '../bookings/get-booking.ts';
import { originOf } from '../events/event.service.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { id, money, newMetadata } from '../shared/validation.ts';
import { attachEvidence, evidenceFileIds } from '../files/evidence.ts';
import { FileErrors } from '../files/file.errors.ts';
import { insertCharge } from './charge-outcomes.ts';
import { CHARGEABLE_BOOKING_STATES } from './charge-state.ts';

const chargeInput = z
  .object({
    type: z.enum(['mileage', 'damage', 'fuel', 'late_return', 'cleaning', 'toll', 'other']).meta({ id: 'ChargeType', description: 'What the charge is for.' }),
    amountCents: money('The amount, in the booking currency\'s minor units.').refine((n) => n > 0, 'must be greater than 0'),
    description: z.string().trim().min(1).max(1000).meta({ description: 'What happened, shown to the customer.' }),
    evidence: evidenceFileIds('Uploaded files (file_...) that support the charge; more can be added with POST /v1/charges/{id}/evidence.'),
    metadata: newMetadata,
  })
  .meta({ id: 'CreateChargeInput' });

export const createCharge = defineOperation({
  name: 'createCharge',
  summary: 'Create a charge',
  description:
    "A post-trip charge on the booking (mileage, damage, fuel, late_return, cleaning, toll, other), pending collection (charge.created). Allowed once the rental has started (active, late, return_in_review, completed, problem); collect it with POST /v1/charges/{id}/collect, take it from the deposit with POST /v1/bookings/{id}/deposit/capture and charge_id, or waive it. Evidence (uploaded files) may be cited now or later.",
  access: { permission: 'charges:write' },
  args: z.object({ bookingId: id('The booking (bk_...).'), input: chargeInput }),
  errors: [CommonErrors.invalidStateTransition, FileErrors.notUsable],
  example: { bookingId: 'bk_01jd3m4k5n6p7q8r9s0t1v2w3x', input: { type: 'damage', amountCents: 12000, description: 'Scratch on the rear bumper', metadata: { claim: 'A-17' } } },
  async run(ctx, args) {
    const booking = await readBooking(ctx, args.bookingId);
    if (!CHARGEABLE_BOOKING_STATES.includes(booking.state)) {
      throw CommonErrors.invalidStateTransition('booking', booking.state, `Cannot charge a booking in state '${booking.state}': charges start once the rental has (active, late, return_in_review, completed, problem).`);
    }
    const { type, amountCents, description, metadata, evidence } = args.input;
    const origin = originOf(ctx);
    return ctx.db.$transaction(async (tx) => {
      const charge = await insertCharge(tx, origin, { bookingId: booking.id, customerId: booking.customerId, type, amountCents, currency: booking.currency, description, metadata });
      if (evidence) await attachEvidence(tx, origin, { chargeId: charge.id }, { fileIds: evidence, description: null }, 'evidence');
      return charge;
    });
  },
});
