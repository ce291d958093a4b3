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
  createdAt: { kind: 'datetime' },
};
