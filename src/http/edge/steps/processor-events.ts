import { ProcessorErrors } from '../../../domain/payments/payment.errors.ts';
import { applyIdentityEvent } from '../../../domain/identity/identity-events.ts';
import { applyProcessorEvent } from '../../../domain/payments/processor-events.ts';
import type { PaymentProcessor } from '../../../domain/payments/processor.ts';
import type { OwnerLookup } from '../../../db/owner-lookup.ts';
import type { TenantDbFactory } from '../../../db/tenant-db.ts';
import type { ProcessorEventReader } from '../../../processors/stripe-webhook.ts';
import { EdgeErrors } from '../../edge.errors.ts';
import { jsonAnswer, type EdgeStep } from '../runner.ts';

export const STRIPE_EVENTS_PATH = '/v1/processor/stripe/webhook';

/**
 * POST /v1/processor/stripe/webhook: the processor's events (payments, and Stripe Identity's
 * verdicts), without an API key (the signature is the credential). A verified event is applied
 * once (200 with what applying it did, `duplicate` on a redelivery); a bad signature is 400 and
 * applies nothing, so the processor's own retries are the only ones that ever land.
 */
export function processorEventsStep(deps: {
  owners: OwnerLookup;
  tenantDb: TenantDbFactory;
  bodyLimitBytes: number;
  readStripeEvent: ProcessorEventReader | null;
  processors: { test: PaymentProcessor; live: PaymentProcessor };
}): EdgeStep {
  return {
    name: 'processor-events',
    run(ctx) {
      const { request } = ctx;
      if (request.pathname !== STRIPE_EVENTS_PATH) return;
      ctx.template = STRIPE_EVENTS_PATH;
      if (request.method !== 'POST') {
        ctx.headers.Allow = 'POST';
        throw EdgeErrors.methodNotAllowed(`${STRIPE_EVENTS_PATH} takes POST only.`);
      }
      const read = deps.readStripeEvent;
      if (!read) throw ProcessorErrors.webhookNotConfigured();
      return (async () => {
        const body = (await request.bytes(deps.bodyLimitBytes)).toString('utf8');
        const event = read(body, request.header('stripe-signature'));
        const processorOf = (livemode: boolean) => (livemode ? deps.processors.live : deps.processors.test);
        const applying = { owners: deps.owners, tenantDb: deps.tenantDb, requestId: ctx.requestId };
        const result = 'kind' in event ? await applyIdentityEvent(applying, event) : await applyProcessorEvent({ ...applying, processorOf }, event);
        ctx.answer = jsonAnswer(200, { object: 'processor_event', id: event.id, type: event.type, outcome: result.outcome, booking_id: result.bookingId });
      })();
    },
  };
}
