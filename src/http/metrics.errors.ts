import { errorCatalogue } from '../domain/shared/errors.ts';

/** Refusals of GET /metrics (the operator's, not the API's: no API key reads it). */
export const MetricsErrors = errorCatalogue('metrics', {
  metricsTokenInvalid: {
    type: 'authentication_error',
    code: 'metrics_token_invalid',
    description: 'GET /metrics takes the METRICS_TOKEN of the service as a bearer token (Authorization: Bearer <token>); this one is missing or wrong.',
    build: () => ({ message: 'GET /metrics needs the METRICS_TOKEN of the service as a bearer token.' }),
  },
  metricsNotLocal: {
    type: 'authorization_error',
    code: 'metrics_not_local',
    description: 'Without METRICS_TOKEN, GET /metrics answers callers on the loopback interface only (not through a proxy); set METRICS_TOKEN to read it from elsewhere.',
    build: () => ({ message: 'GET /metrics answers loopback callers only; the operator can set METRICS_TOKEN to read it from elsewhere.' }),
  },
});
