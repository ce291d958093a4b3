import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics } from '../metrics.ts';
import { EdgeErrors } from './edge.errors.ts';
import type { EdgeStep } from './edge/runner.ts';
import { healthStep, type HealthChecks } from './edge/steps/health.ts';
import { metricsStep } from './edge/steps/metrics.ts';
import { requestObserver } from './observe.ts';
import { answerClientError, nodeListener } from './transports/node.ts';

/** The address a probe server listens on. */
export interface ProbeServer {
  url: string;
  close(): Promise<void>;
}

/**
 * GET /health/live, /health/ready and /metrics of a process that serves no API (`npm run
 * worker`), on a port of its own: the API's own steps (the same readiness checks, the same
 * METRICS_TOKEN or loopback rule), the same listener, and a 404 in the envelope for anything
 * else.
 */
export async function startProbeServer(options: { port: number; host: string; health: HealthChecks; metrics: Metrics; metricsToken: string | undefined }): Promise<ProbeServer> {
  const steps: EdgeStep[] = [
    healthStep(options.health),
    metricsStep(options.metrics, options.metricsToken),
    {
      name: 'not-found',
      run(ctx) {
        throw EdgeErrors.routeNotFound(ctx.request.method, ctx.request.pathname);
      },
    },
  ];
  const server: Server = createServer(nodeListener(steps, { observe: requestObserver(options.metrics) }));
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
