import { join } from 'node:path';
import { parseTrustProxy, type TrustProxy } from './http/client-address.ts';
import { logLevel } from './log.ts';
import type { MessagingConfig } from './messaging/channels.ts';
import { PRIVATE_TARGET_POLICIES, type PrivateTargetPolicy } from './domain/webhooks/url-policy.ts';
import type { S3StorageSettings } from './storage/s3-storage.ts';
import { parseStripeJsUrl } from './processors/stripe-js.ts';
import { DEFAULT_RETENTION, type RetentionPolicy } from './jobs/retention-policy.ts';

/**
 * SEED_DEMO: which empty database `npm start` seeds the demo business into. `embedded`
 * (unset): the embedded database only, never a DATABASE_URL one; `on` (1): either; `off` (0):
 * neither. `npm start -- --demo` is `on` for that start.
 */
export type DemoSeedSetting = 'embedded' | 'on' | 'off';

/** All configuration is environment variables (listed in docs/configuration.md). */
export interface AppConfig {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  redisUrl: string | undefined;
  rateLimitLive: number;
  rateLimitTest: number;
  /** INVITATION_ACCEPT_RATE_LIMIT: uses of invitations' accept links a minute, per client address and per invitation. */
  invitationAcceptLimit: number;
  /** BROWSER_BOOKING_RATE_LIMIT: a publishable key's browser-booking calls a minute, per client address. */
  browserBookingLimit: number;
  holdMinutes: number;
  quoteTtlMinutes: number;
  /** How often expired payment holds are swept (ms); the other periodic sweeps, the money sweep among them, run as often. */
  holdSweepMs: number;
  /** IDEMPOTENCY_LEASE_MS: how long an Idempotency-Key's claim outlives a process that died holding it (its owner renews it while it runs). */
  idempotencyLeaseMs: number;
  /** PROCESSOR_SWEEP_AFTER_MS: how old an unsettled processor call must be before the money sweep takes its request for dead. */
  processorSweepAfterMs: number;
  bodyLimitBytes: number;
  /** Run the webhook delivery worker inside the API process (WEBHOOK_WORKER=off to leave it to `npm run worker`). */
  webhookWorker: boolean;
  webhookPollMs: number;
  webhookLeaseMs: number;
  webhookTimeoutMs: number;
  /** WEBHOOK_PRIVATE_URLS: whether endpoints may target private, loopback and link-local addresses (deny | sandbox | allow). */
  webhookPrivateUrls: PrivateTargetPolicy;
  /** Multiplies the retry delays of sandbox deliveries (the contract). */
  sandboxRetryScale: number;
  /** Host names that serve only one environment (unset: one host serves both, the key decides). */
  sandboxHost: string | undefined;
  productionHost: string | undefined;
  /** FILES_DIR: where files' bytes are kept (default: `files` in DATA_DIR). */
  filesDir: string;
  /** FILES_S3_*: keep files' bytes in an S3-compatible bucket instead of FILES_DIR (unset: the directory). */
  filesS3: S3StorageSettings | undefined;
  /** PUBLIC_URL: the address clients reach this service at, for the file links it hands out (default: the address each request came to). */
  publicUrl: string | undefined;
  /** Live payments through Stripe (STRIPE_SECRET_KEY); unset, live money operations answer 502 processor_not_configured. */
  stripe: { secretKey: string | undefined; publishableKey?: string; webhookSecret: string | undefined; apiUrl: string | undefined; timeoutMs: number; maxNetworkRetries: number; jsUrl?: string };
  /** DNS_SERVERS: the DNS servers custom domains are verified through (unset: the system's). */
  dnsServers: string[] | undefined;
  /** DNS_TIMEOUT_MS: how long one DNS question may take (two tries). */
  dnsTimeoutMs: number;
  /** CUSTOM_DOMAIN_TARGET: the hostname custom domains' CNAME records point at. */
  customDomainTarget: string;
  /** Email and SMS delivery (SMTP_URL, SANDBOX_SMTP_URL, MESSAGES_FROM). */
  messaging: MessagingConfig;
  /** METRICS_TOKEN: the bearer token GET /metrics takes (unset: /metrics answers loopback callers only, without a token). */
  metricsToken: string | undefined;
  /** TRUST_PROXY: the proxies whose X-Forwarded-For names the client (unset: none; the connection's address is the client's). */
  trustProxy: TrustProxy;
  /** WORKER_METRICS_PORT: where `npm run worker` serves /metrics and /health/* (on HOST); unset, it serves nothing. */
  workerMetricsPort: number | undefined;
  /** SEED_DEMO: which empty database start-up seeds the demo business into (DemoSeedSetting). */
  seedDemo: DemoSeedSetting;
  /** How long events, webhook deliveries and audit records are kept, and how their deletion runs (docs/retention.md). */
  retention: RetentionPolicy;
}

function num(name: string, fallback: number, env: NodeJS.ProcessEnv): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, got '${raw}'`);
  return value;
}

function seedDemo(env: NodeJS.ProcessEnv): DemoSeedSetting {
  const raw = env.SEED_DEMO?.trim().toLowerCase();
  if (raw === undefined || raw === '') return 'embedded';
  if (raw === '1' || raw === 'true') return 'on';
  if (raw === '0' || raw === 'false') return 'off';
  throw new Error(`SEED_DEMO must be 1 (seed the demo business into an empty database, PostgreSQL included) or 0 (never seed it); unset seeds only the embedded database; got '${env.SEED_DEMO}'`);
}

function privateUrls(env: NodeJS.ProcessEnv): PrivateTargetPolicy {
  const raw = env.WEBHOOK_PRIVATE_URLS;
  if (raw === undefined || raw === '') return 'sandbox';
  if (!(PRIVATE_TARGET_POLICIES as readonly string[]).includes(raw)) {
    throw new Error(`WEBHOOK_PRIVATE_URLS must be one of ${PRIVATE_TARGET_POLICIES.join(', ')} (default sandbox: private addresses only in the sandbox), got '${raw}'`);
  }
  return raw as PrivateTargetPolicy;
}

function publicUrl(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.PUBLIC_URL;
  if (!raw) return undefined;
  try {
    const url = new URL(raw);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.pathname === '/' && !url.search) return url.origin;
  } catch {
    // reported below
  }
  throw new Error(`PUBLIC_URL must be an http(s) origin such as https://api.example.com, got '${raw}'`);
}

function smtpUrl(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const raw = env[name];
  if (!raw) return undefined;
  try {
    const url = new URL(raw);
    if (url.protocol === 'smtp:' || url.protocol === 'smtps:') return raw;
  } catch {
    // reported below
  }
  throw new Error(`${name} must be an smtp:// or smtps:// URL such as smtp://user:password@mail.example.com:587`);
}

/** STRIPE_PUBLISHABLE_KEY: Stripe's pk_live_/pk_test_ key, for Stripe.js on the live payment steps (the hosted page, the embedded components). */
function stripePublishableKey(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.STRIPE_PUBLISHABLE_KEY;
  if (!raw) return undefined;
  if (!/^pk_(live|test)_[0-9A-Za-z]+$/.test(raw)) throw new Error('STRIPE_PUBLISHABLE_KEY must be a Stripe publishable key (pk_live_... or pk_test_...)');
  return raw;
}

function stripeApiUrl(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.STRIPE_API_URL;
  if (!raw) return undefined;
  try {
    const url = new URL(raw);
    if (url.protocol === 'http:' || url.protocol === 'https:') return raw;
  } catch {
    // reported below
  }
  throw new Error(`STRIPE_API_URL must be an http(s) URL, got '${raw}'`);
}

function filesS3(env: NodeJS.ProcessEnv): S3StorageSettings | undefined {
  const bucket = env.FILES_S3_BUCKET;
  const others = ['FILES_S3_ENDPOINT', 'FILES_S3_REGION', 'FILES_S3_FORCE_PATH_STYLE', 'FILES_S3_PREFIX'].filter((name) => env[name]);
  if (!bucket) {
    if (others.length) throw new Error(`${others.join(', ')} ${others.length > 1 ? 'are' : 'is'} set but FILES_S3_BUCKET is not; set the bucket, or unset them to keep files in FILES_DIR`);
    return undefined;
  }
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw new Error(`FILES_S3_BUCKET must be a bucket name (3-63 lower-case letters, digits, dots and hyphens), got '${bucket}'`);
  let endpoint: string | undefined;
  if (env.FILES_S3_ENDPOINT) {
    try {
      const url = new URL(env.FILES_S3_ENDPOINT);
      if (url.protocol === 'http:' || url.protocol === 'https:') endpoint = url.toString().replace(/\/$/, '');
    } catch {
      // reported below
    }
    if (!endpoint) throw new Error(`FILES_S3_ENDPOINT must be an http(s) URL such as https://s3.example.com, got '${env.FILES_S3_ENDPOINT}'`);
  }
  const pathStyle = env.FILES_S3_FORCE_PATH_STYLE ?? '';
  if (!['', 'true', 'false'].includes(pathStyle)) throw new Error(`FILES_S3_FORCE_PATH_STYLE must be true or false, got '${pathStyle}'`);
  const prefix = (env.FILES_S3_PREFIX ?? '').replace(/^\/+|\/+$/g, '');
  return {
    bucket,
    endpoint,
    region: env.FILES_S3_REGION || env.AWS_REGION || 'us-east-1',
    // S3-compatible services mostly want path-style addressing; AWS itself, virtual hosts.
    forcePathStyle: pathStyle === '' ? endpoint !== undefined : pathStyle === 'true',
    prefix: prefix ? `${prefix}/` : '',
  };
}

/**
 * A live request's processor call must never look dead to the sweep: with Stripe, the wait
 * has to be longer than a call may take with all its retries (STRIPE_TIMEOUT_MS each). The
 * sandbox answers at once.
 */
function processorSweepAfter(env: NodeJS.ProcessEnv): number {
  const after = num('PROCESSOR_SWEEP_AFTER_MS', 120_000, env);
  if (!env.STRIPE_SECRET_KEY) return after;
  const longestCall = num('STRIPE_TIMEOUT_MS', 20_000, env) * (num('STRIPE_MAX_NETWORK_RETRIES', 1, env) + 1);
  if (after <= longestCall) throw new Error(`PROCESSOR_SWEEP_AFTER_MS must be longer than a processor call may take (STRIPE_TIMEOUT_MS × (STRIPE_MAX_NETWORK_RETRIES + 1) = ${longestCall} ms), got ${after}`);
  return after;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  logLevel(env); // LOG_LEVEL is read by the logger (src/log.ts); refused here with a clear line
  return {
    port: num('PORT', 3000, env),
    host: env.HOST || '127.0.0.1',
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.DATA_DIR || './data',
    redisUrl: env.REDIS_URL || undefined,
    rateLimitLive: num('RATE_LIMIT_LIVE', 100, env),
    rateLimitTest: num('RATE_LIMIT_TEST', 25, env),
    invitationAcceptLimit: num('INVITATION_ACCEPT_RATE_LIMIT', 10, env),
    browserBookingLimit: num('BROWSER_BOOKING_RATE_LIMIT', 30, env),
    holdMinutes: num('BOOKING_HOLD_MINUTES', 30, env),
    quoteTtlMinutes: num('QUOTE_TTL_MINUTES', 30, env),
    holdSweepMs: num('HOLD_SWEEP_MS', 10_000, env),
    idempotencyLeaseMs: num('IDEMPOTENCY_LEASE_MS', 60_000, env),
    processorSweepAfterMs: processorSweepAfter(env),
    bodyLimitBytes: 1024 * 1024,
    webhookWorker: (env.WEBHOOK_WORKER ?? 'on') !== 'off',
    webhookPollMs: num('WEBHOOK_POLL_MS', 1_000, env),
    webhookLeaseMs: num('WEBHOOK_LEASE_MS', 60_000, env),
    webhookTimeoutMs: num('WEBHOOK_TIMEOUT_MS', 10_000, env),
    webhookPrivateUrls: privateUrls(env),
    sandboxRetryScale: num('SANDBOX_RETRY_SCALE', 1, env),
    sandboxHost: env.SANDBOX_HOST || undefined,
    productionHost: env.PRODUCTION_HOST || undefined,
    filesDir: env.FILES_DIR || join(env.DATA_DIR || './data', 'files'),
    filesS3: filesS3(env),
    publicUrl: publicUrl(env),
    stripe: {
      secretKey: env.STRIPE_SECRET_KEY || undefined,
      publishableKey: stripePublishableKey(env),
      webhookSecret: env.STRIPE_WEBHOOK_SECRET || undefined,
      apiUrl: stripeApiUrl(env),
      jsUrl: parseStripeJsUrl(env.STRIPE_JS_URL),
      timeoutMs: num('STRIPE_TIMEOUT_MS', 20_000, env),
      maxNetworkRetries: num('STRIPE_MAX_NETWORK_RETRIES', 1, env),
    },
    dnsServers: env.DNS_SERVERS ? env.DNS_SERVERS.split(',').map((s) => s.trim()).filter(Boolean) : undefined,
    dnsTimeoutMs: num('DNS_TIMEOUT_MS', 3_000, env),
    customDomainTarget: (env.CUSTOM_DOMAIN_TARGET || 'sites.rentals.localhost').toLowerCase().replace(/\.$/, ''),
    messaging: { smtpUrl: smtpUrl('SMTP_URL', env), sandboxSmtpUrl: smtpUrl('SANDBOX_SMTP_URL', env), from: env.MESSAGES_FROM || 'no-reply@localhost' },
    metricsToken: env.METRICS_TOKEN || undefined,
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    workerMetricsPort: env.WORKER_METRICS_PORT ? num('WORKER_METRICS_PORT', 0, env) : undefined,
    seedDemo: seedDemo(env),
    retention: retention(env),
  };
}

function retention(env: NodeJS.ProcessEnv): RetentionPolicy {
  const whole = (name: string, fallback: number, min: number) => {
    const value = num(name, fallback, env);
    if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be a whole number of at least ${min}, got '${env[name]}'`);
    return value;
  };
  return {
    eventDays: whole('EVENT_RETENTION_DAYS', DEFAULT_RETENTION.eventDays, 0),
    webhookDeliveryDays: whole('WEBHOOK_DELIVERY_RETENTION_DAYS', DEFAULT_RETENTION.webhookDeliveryDays, 0),
    auditDays: whole('AUDIT_RETENTION_DAYS', DEFAULT_RETENTION.auditDays, 0),
    batchSize: whole('RETENTION_BATCH_SIZE', DEFAULT_RETENTION.batchSize, 1),
    maxBatches: whole('RETENTION_MAX_BATCHES', DEFAULT_RETENTION.maxBatches, 1),
    sweepMs: num('RETENTION_SWEEP_MS', DEFAULT_RETENTION.sweepMs, env),
  };
}
