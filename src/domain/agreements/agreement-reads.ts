import { z } from 'zod';
import type { AgreementState } from '../../generated/prisma/enums.ts';
import { readBooking } from '../bookings/get-booking.ts';
import { found } from '../shared/found.ts';
import { defineOperation } from '../shared/operation.ts';
import { agreementMachine } from './agreement-state.ts';
import { currentAgreement } from './current-agreement.ts';
import { AGREEMENT_EXAMPLE, bookingIdArg } from './create-agreement.ts';

export const getAgreement = defineOperation({
  name: 'bookingAgreement',
  summary: 'Retrieve agreement data',
  description:
    "The booking's rental agreement (its newest: a voided one until another is created): its state (draft, sent, signed, voided) and next_states, the current document (file_id: GET /v1/files/{id} for a 5-minute download link; document_sha256; version), when and on which channel it was sent, and once signed the signer (name, IP address, user agent, and the SHA-256 of the document version they signed), and once voided when and why (voided_at, void_reason). 404 until one is created.",
  access: { permission: 'agreements:read' },
  args: z.object({ bookingId: bookingIdArg }),
  errors: [],
  example: AGREEMENT_EXAMPLE,
  async run(ctx, args, { query }) {
    const booking = await readBooking(ctx, args.bookingId);
    return found(currentAgreement(ctx.db, booking.id, query), 'agreement', booking.id);
  },
});

/** Where a booking's agreement stands, in a few fields. */
export interface AgreementStatus {
  bookingId: string;
  state: AgreementState;
  nextStates: AgreementState[];
  sentAt: Date | null;
  signedAt: Date | null;
  signedBy: string | null;
}

export const getAgreementStatus = defineOperation({
  name: 'agreementStatus',
  summary: 'Retrieve agreement state',
  description: "Where the booking's rental agreement stands: its state and next_states, when it was sent and signed, and the signer's name. 404 until one is created.",
  access: { permission: 'agreements:read' },
  args: z.object({ bookingId: bookingIdArg }),
  errors: [],
  example: AGREEMENT_EXAMPLE,
  async run(ctx, args): Promise<AgreementStatus> {
    const booking = await readBooking(ctx, args.bookingId);
    const agreement = await found(currentAgreement(ctx.db, booking.id), 'agreement', booking.id);
    return {
      bookingId: booking.id,
      state: agreement.state,
      nextStates: agreementMachine.nextStates(agreement),
      sentAt: agreement.sentAt,
      signedAt: agreement.signedAt,
      signedBy: agreement.signedAt ? agreement.signerName : null,
    };
  },
});
