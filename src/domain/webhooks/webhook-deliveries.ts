import { z } from 'zod';
import { originOf, recordEvent } from '../events/event.service.ts';
import { EVENT_TYPES } from '../events/event-types.ts';
import { resourceMissing } from '../shared/common.errors.ts';
import { found } from '../shared/found.ts';
import { newId } from '../shared/ids.ts';
import { defineOperation } from '../shared/operation.ts';
import { pageQuery, toPage } from '../shared/pagination.ts';
import { id } from '../shared/validation.ts';

export const listWebhookDeliveries = defineOperation({
  name: 'webhookDeliveries',
  summary: 'List delivery attempts',
  description: "Every delivery attempt of the endpoint, newest first: event, URL, response status, attempt number, duration and the next retry's time.",
  access: { permission: 'webhooks:read' },
  args: z.object({ endpointId: id('The endpoint (we_...).'), eventId: id('Only the attempts of this event (evt_...).').nullish() }),
  errors: [],
  example: { endpointId: 'we_01jd3m4k5n6p7q8r9s0t1v2w3x', eventId: 'evt_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  async run(ctx, args, { page }) {
    await found(ctx.db.webhookEndpoint.findUnique({ where: { id: args.endpointId }, select: { id: true } }), 'webhook endpoint', args.endpointId);
    const p = pageQuery(page ?? {});
    const rows = await ctx.db.webhookDelivery.findMany({
      where: { endpointId: args.endpointId, ...(args.eventId ? { eventId: args.eventId } : {}), ...p.where },
      orderBy: p.orderBy,
      take: p.take,
    });
    return toPage(rows, p);
  },
});

export const retryWebhookDelivery = defineOperation({
  name: 'retryWebhookDelivery',
  summary: 'Send a delivery again',
  description: 'Queues the event of a delivery attempt again for its endpoint, due now, whatever happened before (delivered, given up or waiting for a retry).',
  access: { permission: 'webhooks:write' },
  args: z.object({ endpointId: id('The endpoint (we_...).'), deliveryId: id('The delivery attempt (wd_...).') }),
  errors: [],
  example: { endpointId: 'we_01jd3m4k5n6p7q8r9s0t1v2w3x', deliveryId: 'wd_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  async run(ctx, args) {
    const delivery = await found(ctx.db.webhookDelivery.findFirst({ where: { id: args.deliveryId, endpointId: args.endpointId } }), 'webhook delivery', args.deliveryId);
    // Retention may delete the message (and its attempts) between the read and the write:
    // then the delivery is gone, as a read a moment later would say.
    const queued = await ctx.db.webhookMessage.updateMany({ where: { id: delivery.messageId }, data: { state: 'pending', nextAttemptAt: ctx.now() } });
    if (queued.count === 0) throw resourceMissing('webhook delivery', args.deliveryId);
    return found(ctx.db.webhookMessage.findUnique({ where: { id: delivery.messageId } }), 'webhook delivery', args.deliveryId);
  },
});

export const sendTestWebhook = defineOperation({
  name: 'testSendWebhook',
  summary: 'Send a test webhook to a registered sandbox endpoint',
  description: 'Sandbox: a test event delivered to this endpoint only, signed and logged like any other.',
  access: { permission: 'webhooks:write', sandbox: true },
  args: z.object({
    endpointId: id('The endpoint (we_...).'),
    input: z
      .object({ type: z.enum(EVENT_TYPES).default('rental.started').meta({ description: 'Event type to send (default rental.started).' }) })
      .meta({ id: 'SendTestWebhookInput' })
      .nullish(),
  }),
  errors: [],
  example: { endpointId: 'we_01jd3m4k5n6p7q8r9s0t1v2w3x', input: { type: 'rental.started' } },
  async run(ctx, args) {
    const endpoint = await found(ctx.db.webhookEndpoint.findUnique({ where: { id: args.endpointId } }), 'webhook endpoint', args.endpointId);
    return ctx.db.$transaction((tx) =>
      recordEvent(tx, originOf(ctx), {
        type: args.input?.type ?? 'rental.started',
        onlyEndpointId: endpoint.id,
        object: { object: 'test_webhook', id: newId('event').replace(/^evt_/, 'test_'), endpoint_id: endpoint.id, test: true, livemode: false },
      }),
    );
  },
  // The test event the first run recorded (and queued), not a second one.
  async replay(ctx, _args, _extras, effect) {
    const [id] = effect.created.Event ?? [];
    return (id ? await ctx.db.event.findUnique({ where: { id } }) : null) ?? undefined;
  },
});
