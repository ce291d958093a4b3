import { z } from 'zod';
import type { DomainContext } from '../shared/context.ts';
import { EVENT_TYPES, isEventType } from '../events/event-types.ts';
import { checkWebhookTarget, privateTargetsAllowed } from './url-policy.ts';
import { WebhookErrors } from './webhook.errors.ts';

export const endpointUrl = z
  .string()
  .max(2048)
  .url()
  .refine((u) => /^https?:\/\//i.test(u), 'must be an http(s) URL')
  .meta({ description: 'Where deliveries are POSTed: https in live mode, and on the public internet.' });

export const enabledEvents = z
  .array(z.string().max(100))
  .min(1)
  .max(100)
  .refine((types) => types.every((t) => t === '*' || isEventType(t)), `each must be "*" or one of: ${EVENT_TYPES.join(', ')}`)
  .meta({ description: 'Event types delivered here, or ["*"] for all.' });

/**
 * Deliveries leave from inside our network with the business's data: a live endpoint must be
 * https, and unless WEBHOOK_PRIVATE_URLS allows private targets for the caller's environment,
 * on the public internet (src/webhooks/guarded-dispatcher.ts checks again at connect time,
 * as DNS answers change).
 */
export async function assertDeliverable(ctx: DomainContext, url: string): Promise<void> {
  const { livemode } = ctx.principal;
  if (livemode && !url.toLowerCase().startsWith('https://')) throw WebhookErrors.urlNotAllowed('Invalid url: live webhook endpoints must use https.');
  const reason = await checkWebhookTarget(url, { allowPrivate: privateTargetsAllowed(ctx.config.webhookPrivateUrls, livemode) });
  if (reason) throw WebhookErrors.urlNotAllowed(`Invalid url: ${reason}; ${livemode ? 'live ' : ''}webhook endpoints must be reachable on the public internet.`);
}
