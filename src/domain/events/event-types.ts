/**
 * Event types the platform emits (the spec's "Events" and the lifecycle tables). Webhook
 * endpoints subscribe to these, or to "*". The tables (`*-state.ts`) may only emit these:
 * the engine checks it when a table loads.
 */
export const EVENT_TYPES = [
  'booking.created', 'booking.checkout_started', 'booking.confirmed', 'booking.canceled', 'booking.problem',
  'booking.updated', 'booking.extended', 'booking.resumed',
  'payment.processing', 'payment.succeeded', 'payment.failed', 'payment.refunded', 'payment.refund_failed',
  'identity.processing', 'identity.verified', 'identity.rejected', 'agreement.created', 'agreement.sent', 'agreement.signed', 'agreement.voided',
  'insurance.submitted', 'insurance.approved', 'insurance.rejected',
  'deposit.secured', 'deposit.released', 'deposit.captured', 'deposit.capture_failed',
  'pickup.ready', 'rental.started', 'rental.late', 'return.submitted', 'rental.completed',
  'charge.created', 'charge.succeeded', 'charge.failed', 'charge.waived',
  'dispute.created', 'dispute.updated', 'dispute.approved', 'dispute.closed',
  'domain.created', 'domain.verified',
  'message.created', 'message.sent', 'message.failed', 'delivery.retrying',
  'team_member.created', 'team_member.updated', 'team_member.removed', 'invitation.created', 'invitation.revoked',
  'vehicle.updated', 'vehicle.archived', 'customer.created',
  'business.updated', 'business.settings_updated', 'website.updated', 'branding.updated',
  'app.authorized', 'app.deauthorized',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export const isEventType = (value: string): value is EventType => (EVENT_TYPES as readonly string[]).includes(value);

/**
 * What each event carries in `data.object` (the `object` of its REST shape) and when it is
 * sent: the OpenAPI document's `webhooks` section is generated from this. A test send
 * (POST /v1/test/webhooks/{id}/send) carries a `test_webhook` object instead.
 */
export const EVENT_CATALOGUE: Record<EventType, { object: string; description: string }> = {
  'booking.created': { object: 'booking', description: 'A booking was created (pending payment, holding its vehicle).' },
  'booking.checkout_started': { object: 'booking', description: 'A hosted checkout was started for the booking.' },
  'booking.confirmed': { object: 'booking', description: 'The booking is confirmed (paid and approved), or went back to confirmed when a readiness gate regressed or a problem was resolved.' },
  'booking.canceled': { object: 'booking', description: 'The booking was canceled, or its unpaid hold expired.' },
  'booking.problem': { object: 'booking', description: 'A problem was flagged on the booking.' },
  'booking.updated': { object: 'booking', description: 'The booking was updated (metadata, customer details or period).' },
  'booking.extended': { object: 'booking', description: 'The booking was extended to a later end.' },
  'booking.resumed': {
    object: 'booking',
    description: 'A booking in problem before pickup resumed once its cause was gone (its identity verified after a rejection): it is booked again, and is confirmed as any paid booking is (booking.confirmed follows at once unless approval is manual).',
  },
  'payment.processing': { object: 'booking', description: "The booking's payment was submitted and is processing." },
  'payment.succeeded': { object: 'booking', description: "The booking's payment succeeded." },
  'payment.failed': { object: 'booking', description: "The booking's payment failed." },
  'payment.refunded': { object: 'payment', description: 'The payment was refunded, in full or in part.' },
  'payment.refund_failed': { object: 'payment', description: 'A refund of the payment failed and was reversed.' },
  'identity.processing': { object: 'identity_verification', description: 'An identity verification is processing its documents.' },
  'identity.verified': { object: 'identity_verification', description: "The customer's identity was verified." },
  'identity.rejected': { object: 'identity_verification', description: "The customer's identity verification was rejected." },
  'agreement.created': { object: 'agreement', description: 'A rental agreement was created (or its document replaced).' },
  'agreement.sent': { object: 'agreement', description: 'The agreement was sent to the customer for signature.' },
  'agreement.signed': { object: 'agreement', description: 'The customer signed the agreement.' },
  'agreement.voided': {
    object: 'agreement',
    description: "The agreement was voided (void_reason says why): its signing links stop working, the booking's agreement gate is pending again, and a new agreement may be created.",
  },
  'insurance.submitted': { object: 'insurance', description: 'Proof of insurance was submitted (or submitted again).' },
  'insurance.approved': { object: 'insurance', description: 'The submitted insurance was approved.' },
  'insurance.rejected': { object: 'insurance', description: 'The submitted insurance was rejected.' },
  'deposit.secured': { object: 'deposit', description: 'The security deposit was secured (held on the card).' },
  'deposit.released': { object: 'deposit', description: 'The security deposit was released.' },
  'deposit.captured': { object: 'deposit', description: 'The security deposit was captured, in full or in part.' },
  'deposit.capture_failed': { object: 'deposit', description: 'A capture of the security deposit failed and was reversed.' },
  'pickup.ready': { object: 'booking', description: 'Every readiness gate is met: the booking is ready for pickup.' },
  'rental.started': { object: 'booking', description: 'The vehicle was picked up: the rental is active.' },
  'rental.late': { object: 'booking', description: 'The rental is still out past its end and the grace period.' },
  'return.submitted': { object: 'booking', description: 'The return was submitted and awaits review.' },
  'rental.completed': { object: 'booking', description: 'The return was completed: the rental is over.' },
  'charge.created': { object: 'charge', description: 'A post-trip charge was created.' },
  'charge.succeeded': { object: 'charge', description: 'A charge was collected.' },
  'charge.failed': { object: 'charge', description: 'Collecting a charge failed.' },
  'charge.waived': { object: 'charge', description: 'A charge was waived.' },
  'dispute.created': { object: 'dispute', description: 'The customer disputed a charge.' },
  'dispute.updated': { object: 'dispute', description: 'A dispute went under review or got evidence.' },
  'dispute.approved': { object: 'dispute', description: "A dispute was approved (decided in the customer's favor)." },
  'dispute.closed': { object: 'dispute', description: 'A dispute was closed (the charge stands).' },
  'domain.created': { object: 'domain', description: 'A custom domain was added; it awaits DNS verification.' },
  'domain.verified': { object: 'domain', description: "A custom domain's DNS record was verified." },
  'message.created': { object: 'message', description: 'A message to (or from) a customer was created.' },
  'message.sent': { object: 'message', description: 'A message was delivered to its channel.' },
  'message.failed': { object: 'message', description: 'A message could not be delivered.' },
  'delivery.retrying': { object: 'webhook_delivery', description: 'A webhook delivery failed and will be retried.' },
  'team_member.created': { object: 'team_member', description: 'Someone joined the team (an invitation was accepted).' },
  'team_member.updated': { object: 'team_member', description: "A team member's role or permissions changed." },
  'team_member.removed': { object: 'team_member', description: 'A team member was removed.' },
  'invitation.created': { object: 'invitation', description: 'Someone was invited to the team.' },
  'invitation.revoked': { object: 'invitation', description: 'An invitation was revoked.' },
  'vehicle.updated': { object: 'vehicle', description: 'A vehicle or its pricing was updated.' },
  'vehicle.archived': { object: 'vehicle', description: 'A vehicle was archived.' },
  'customer.created': { object: 'customer', description: 'A customer was created.' },
  'business.updated': { object: 'business', description: 'The business (name, contacts, address, time zone) was updated.' },
  'business.settings_updated': { object: 'business_settings', description: "The business's rental settings were updated." },
  'website.updated': { object: 'website', description: 'The customer-facing website was updated.' },
  'branding.updated': { object: 'branding', description: "The website's branding was updated." },
  'app.authorized': { object: 'connected_app', description: 'An owner or admin connected an OAuth app to the business, granting it the scopes listed.' },
  'app.deauthorized': { object: 'connected_app', description: "The business disconnected an OAuth app (or a reused refresh token or code revoked the connection): the app's tokens stopped working." },
};

/**
 * Fields of an object's REST shape that its events leave out: one-time secrets and links,
 * handed only to the caller that asked for them, never to webhooks.
 */
export const EVENT_OBJECT_OMITS: Readonly<Record<string, readonly string[]>> = {
  identity_verification: ['client_secret'],
  agreement: ['signing_url', 'signing_url_expires_at', 'message_id'],
  // Read from the answers (made with the platform's settings), not repeated in every event.
  domain: ['records'],
};
