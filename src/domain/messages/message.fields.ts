import type { PublicFields } from '../shared/presenter.ts';

export const MESSAGE_FIELDS: PublicFields = {
  id: { kind: 'id' },
  livemode: { kind: 'boolean' },
  conversationId: { kind: 'id' },
  bookingId: { kind: 'id', nullable: true },
  channel: { kind: { enum: 'MessageChannel' } },
  direction: { kind: { enum: 'MessageDirection' } },
  body: { kind: 'string', description: 'Card numbers and security codes are redacted before storage.' },
  redacted: { kind: 'boolean', description: 'Whether payment data was removed from the body.' },
  state: { kind: { enum: 'MessageDeliveryState' }, description: 'Its delivery: queued (an email or SMS not yet taken by its channel), sent, or failed (see failure_code). in_app messages are sent when stored.' },
  recipient: { kind: 'string', nullable: true, description: "Where the channel delivers it: the customer's email address or phone number (null in_app)." },
  failureCode: { kind: 'string', nullable: true, description: 'Why the last delivery attempt failed: recipient_missing (the customer has no email address or phone number), recipient_rejected, channel_unavailable, channel_not_configured.' },
  deliveryAttempts: { kind: 'int', description: 'Attempts made to hand it to its channel.' },
  sentAt: { kind: 'datetime', nullable: true },
  createdAt: { kind: 'datetime' },
};

export const CONVERSATION_FIELDS: PublicFields = {
  id: { kind: 'id' },
  livemode: { kind: 'boolean' },
  customerId: { kind: 'id', nullable: true },
  bookingId: { kind: 'id', nullable: true },
  channel: { kind: { enum: 'MessageChannel' } },
  createdAt: { kind: 'datetime' },
};
