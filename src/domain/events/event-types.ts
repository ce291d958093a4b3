/**
 * Event types the platform emits (SPEC.md "Events" and the lifecycle of CONTRACT.md).
 * Webhook endpoints subscribe to these, or to "*".
 */
export const EVENT_TYPES = [
  'booking.created', 'booking.checkout_started', 'booking.confirmed', 'booking.canceled', 'booking.problem',
  'payment.processing', 'payment.succeeded', 'payment.failed', 'payment.refunded',
  'identity.verified', 'identity.rejected', 'agreement.signed',
  'deposit.secured', 'deposit.released', 'deposit.captured',
  'pickup.ready', 'rental.started', 'rental.late', 'return.submitted', 'rental.completed',
  'charge.created', 'charge.succeeded', 'charge.failed', 'charge.waived', 'dispute.created',
  'message.created', 'delivery.retrying',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export const isEventType = (value: string): value is EventType => (EVENT_TYPES as readonly string[]).includes(value);
