import { loadConfig } from './config.ts';
import { log } from './log.ts';
import { healthChecks } from './http/health-checks.ts';
import { startProbeServer } from './http/probe-server.ts';
import { createMetrics } from './metrics.ts';
import { webhookQueueDepth } from './webhooks/queue-depth.ts';
import { keepCompiledCode, prepareStartup } from './startup.ts';

/**
 * `npm run worker`: webhook delivery and the platform's periodic work (expired holds, late
 * rentals, the money sweep), for running any number of workers beside the API processes (start those with
 * WEBHOOK_WORKER=off); each sweep's steps are compare-and-sets, so they happen once. Needs PostgreSQL: the embedded database
 * belongs to the one process that opened it, where the worker runs in-process. With
 * WORKER_METRICS_PORT it serves its own /metrics and /health/* there (src/http/probe-server.ts).
 */
async function main() {
  // Before the modules that are most of the start-up load (imported below).
  prepareStartup();
  const config = loadConfig();
  if (!config.databaseUrl) {
    console.error('npm run worker needs DATABASE_URL (PostgreSQL); with the embedded database the worker runs inside npm start.');
    process.exit(2);
  }
  const [{ openDatabase }, { startDeliveryWorker, workerOptions }, { tenantDbFactory }, { startMaintenance }, { configuredChannels }, { configuredProcessors, reportingProcessors }] = await Promise.all([
    import('./db/database.ts'),
    import('./webhooks/delivery-worker.ts'),
    import('./db/tenant-db.ts'),
    import('./jobs/maintenance.ts'),
    import('./messaging/channels.ts'),
    import('./processors/configured.ts'),
  ]);
  const db = await openDatabase({ databaseUrl: config.databaseUrl });
  const metrics = createMetrics({ queueDepth: () => webhookQueueDepth(db.prisma) });
  const worker = await startDeliveryWorker(db, { ...workerOptions(config), onAttempt: metrics.delivery });
  // The worker has no Redis client of its own: its readiness is the database's.
  const probes =
    config.workerMetricsPort === undefined
      ? null
      : await startProbeServer({ port: config.workerMetricsPort, host: config.host, health: healthChecks(db.prisma, db.kind, undefined), metrics, metricsToken: config.metricsToken });
  const maintenance = startMaintenance({
    prisma: db.prisma,
    tenantDb: tenantDbFactory(db.prisma, undefined, { direct: db.direct }),
    now: () => new Date(),
    messaging: configuredChannels(config.messaging),
    processors: reportingProcessors(await configuredProcessors(config)),
    processorSweepAfterMs: config.processorSweepAfterMs,
    holdSweepMs: config.holdSweepMs,
    idempotencySweepMs: config.holdSweepMs > 0 ? 600_000 : 0,
    retention: config.retention,
  });
  // The worker's timers are unref'd and its sockets are the database's: while PostgreSQL
  // restarts nothing else holds the process, which would exit 0 and stop delivering. It lives
  // until it is told to stop.
  const alive = setInterval(() => {}, 2 ** 31 - 1);
  const stop = async () => {
    clearInterval(alive);
    await probes?.close();
    maintenance.stop();
    await worker.stop();
    await db.close();
    process.exit(0);
  };
  // Before the lines that say it runs: a supervisor may stop it as soon as it reads them.
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  if (probes) log.info({ url: probes.url }, 'worker health and metrics served');
  log.info('webhook worker delivering from PostgreSQL');
  keepCompiledCode();
}

main().catch((err) => {
  log.fatal({ err }, 'webhook worker stopped');
  process.exit(1);
});
