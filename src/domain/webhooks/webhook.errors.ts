import { errorCatalogue } from '../shared/errors.ts';

/** Refusals of webhook endpoint configuration. */
export const WebhookErrors = errorCatalogue('webhook', {
  urlNotAllowed: {
    type: 'validation_error',
    code: 'url_not_allowed',
    description:
      'The endpoint URL points at a private, loopback, link-local or otherwise non-public address (or a live endpoint is not https). Deliveries leave from inside our network, so they go only to the public internet; WEBHOOK_PRIVATE_URLS decides where private targets are allowed.',
    build: (message: string) => ({ message, param: 'url' }),
  },
});
