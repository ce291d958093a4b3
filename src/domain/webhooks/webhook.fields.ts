import type { PublicFields } from '../shared/presenter.ts';

export const WEBHOOK_ENDPOINT_FIELDS: PublicFields = {
  id: { kind: 'id' },
  livemode: { kind: 'boolean' },
  url: { kind: 'string' },
  description: { kind: 'string', nullable: true },
  enabledEvents: { kind: 'strings', description: 'Event types delivered here, or ["*"] for all.' },
  enabled: { kind: 'boolean' },
  metadata: { kind: 'json' },
  appId: {
    kind: 'id',
    nullable: true,
    description: "The OAuth app (app_...) whose endpoint this is: it receives the events of the businesses connected to the app. Null for the business's own endpoints.",
  },
  createdAt: { kind: 'datetime' },
};

export const WEBHOOK_DELIVERY_FIELDS: PublicFields = {
  id: { kind: 'id' },
  livemode: { kind: 'boolean' },
  endpointId: { kind: 'id' },
  eventId: { kind: 'id' },
  eventType: { kind: 'string' },
  url: { kind: 'string' },
  attempt: { kind: 'int', description: 'Attempt number, from 1.' },
  responseStatus: { kind: 'int', nullable: true, description: 'HTTP status of the answer; null when none came (timeout, refused).' },
  durationMs: { kind: 'int' },
  error: { kind: 'string', nullable: true },
  nextRetryAt: { kind: 'datetime', nullable: true, description: 'When the next attempt is due; null once delivered or given up.' },
  createdAt: { kind: 'datetime' },
};
