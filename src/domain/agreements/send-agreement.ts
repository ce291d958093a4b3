import { z } from 'zod';
import type { Agreement } from '../../generated/prisma/client.ts';
import type { MessageChannel } from '../../generated/prisma/enums.ts';
import { readBooking } from '../bookings/get-booking.ts';
import { originOf } from '../events/event.service.ts';
import { deliverStored, storeMessage } from '../messages/post-message.ts';
import { CommonErrors, validationError } from '../shared/common.errors.ts';
import { found } from '../shared/found.ts';
import { runAction } from '../shared/lifecycle.ts';
import { defineOperation } from '../shared/operation.ts';
import { SIGNING_LINK_DAYS } from './agreement-links.ts';
import { agreementLifecycle, agreementMachine } from './agreement-state.ts';
import { AGREEMENT_EXAMPLE, assertBookingTakesAgreement, bookingIdArg } from './create-agreement.ts';
import { currentAgreement } from './current-agreement.ts';

/** The send answer: the agreement, plus the link it sent (the only answer that ever shows it). */
export type SentAgreement = Agreement & { signingUrl: string; signingUrlExpiresAt: Date; messageId: string };

const CHANNELS = ['email', 'sms', 'in_app'] as const;

export const sendAgreement = defineOperation({
  name: 'sendAgreement',
  summary: 'Send agreement for signing',
  description: `Sends the customer a link to read and sign the agreement's current version (agreement.sent): a message in the customer's conversation on the channel (email, sms or in_app), stored and delivered like any message. The link needs no key, works ${SIGNING_LINK_DAYS} days, and only for this version of this agreement: its GET answers the agreement's summary and a short-lived link to the PDF, its POST (signer_name, accept: true) signs. The answer alone carries signing_url (events never do). Sending again makes a new link for the same version. Email needs the customer's email address, SMS their phone (422 on channel otherwise).`,
  access: { permission: 'agreements:write' },
  args: z.object({
    bookingId: bookingIdArg,
    input: z
      .object({ channel: z.enum(CHANNELS).meta({ id: 'MessageChannel', description: 'How the customer receives the link: email, sms or in_app.' }) })
      .meta({ id: 'SendAgreementInput' }),
  }),
  errors: [CommonErrors.invalidStateTransition],
  example: { ...AGREEMENT_EXAMPLE, input: { channel: 'email' } },
  async run(ctx, args, { query }): Promise<SentAgreement> {
    const booking = await readBooking(ctx, args.bookingId);
    assertBookingTakesAgreement(booking);
    const agreement = await found(currentAgreement(ctx.db, booking.id), 'agreement', booking.id);
    agreementMachine.check(agreement, 'send');
    const channel = args.input.channel as MessageChannel;
    const customer = await ctx.db.customer.findUniqueOrThrow({ where: { id: booking.customerId } });
    if (channel === 'email' && !customer.email) throw validationError('channel', `Customer ${customer.id} has no email address; send by sms or in_app, or add one.`);
    if (channel === 'sms' && !customer.phone) throw validationError('channel', `Customer ${customer.id} has no phone number; send by email or in_app, or add one.`);
    const business = await ctx.db.business.findUniqueOrThrow({ where: { id: ctx.tenant.businessId }, select: { name: true } });

    const now = ctx.now();
    const expiresAt = new Date(Math.floor(now.getTime() / 1000) * 1000 + SIGNING_LINK_DAYS * 86_400_000);
    const signingUrl = ctx.signingLinks.link({ ...ctx.tenant, agreementId: agreement.id, version: agreement.version }, expiresAt);
    const body = `${business.name}: your rental agreement for booking ${booking.id} is ready. Read and sign it here before ${expiresAt.toISOString()}: ${signingUrl}`;
    const origin = originOf(ctx);
    const recipient = channel === 'email' ? customer.email : channel === 'sms' ? customer.phone : null;
    // The agreement is sent and its message stored together, or neither; delivery follows the commit.
    const message = await ctx.db.$transaction(async (tx) => {
      await runAction(tx, origin, agreementLifecycle, agreement, 'send', { sentAt: now, sentVia: channel });
      return storeMessage(ctx, tx, { conversationId: null, customerId: customer.id, bookingId: booking.id }, channel, body, recipient);
    });
    await deliverStored(ctx, message);
    const messageId = message.id;
    const sent = await ctx.db.agreement.findUniqueOrThrow({ ...query, where: { id: agreement.id } });
    return { ...sent, signingUrl, signingUrlExpiresAt: expiresAt, messageId };
  },
});
