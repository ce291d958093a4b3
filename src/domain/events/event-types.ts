/**
 * Event types the platform emits (the spec's "Events" and the lifecycle tables). Webhook
 * endpoints subscribe to these, or to "*". The tables (`*-state.ts`) may only emit these:
 * the engine checks it when a table loads.
 */
export const EVENT_TYPES = [
  'booking.created', 'booking.checkout_started', 'booking.confirmed', 'booking.canceled', 'booking.problem',
  'booking.updated', 'booking.extended',
  'payment.processing', 'payment.succeeded', 'payment.failed', 'payment.refunded', 'payment.refund_failed',
  'identity.processing', 'identity.verified', 'identity.rejected', 'agreement.created', 'agreement.sent', 'agreement.signed',
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
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export const isEventType = (value: string): value is EventType => (EVENT_TYPES as readonly string[]).includes(value);
