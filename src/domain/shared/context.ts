import type { TenantDb, TenantScope, TenantTx } from '../../db/tenant-db.ts';
import type { PrivateTargetPolicy } from '../webhooks/url-policy.ts';
import type { Principal } from '../access/permissions.ts';
import type { PaymentProcessor } from '../payments/processor.ts';
import type { FileAccess } from '../files/file-links.ts';
import type { DnsResolver } from '../domains/dns-resolver.ts';
import type { MessageChannels } from '../messages/message-channels.ts';
import type { SigningLinks } from '../agreements/agreement-links.ts';
import type { BrowserBookingLinks } from '../bookings/browser-booking.ts';
import type { IdentityProvider } from '../identity/identity-provider.ts';
import type { IdempotentRequest } from './idempotent-calls.ts';

/**
 * The database as domain code sees it: the caller's business and environment only (a
 * scoped client, src/db/tenant-db.ts), or a transaction of it. Domain code has no other way
 * to reach tenant rows.
 */
export type Db = TenantDb | TenantTx;

export interface DomainConfig {
  /** How long a pending_payment booking holds its vehicle (the contract's "Booking"). */
  holdMinutes: number;
  quoteTtlMinutes: number;
  /** Where custom domains' CNAME records point (CUSTOM_DOMAIN_TARGET). */
  customDomainTarget: string;
  /** Whether webhook endpoints may target private, loopback and link-local addresses. */
  webhookPrivateUrls: PrivateTargetPolicy;
}

/** Everything a use case needs: the scoped database, who is calling, and the clock. */
export interface DomainContext {
  db: TenantDb;
  /** The owner every new row names (the scoped client checks it). */
  tenant: TenantScope;
  principal: Principal;
  requestId: string;
  idempotencyKey: string | null;
  /** The request's claim of its Idempotency-Key, when it has one: what was committed under the key. */
  idempotent: IdempotentRequest | null;
  config: DomainConfig;
  /** The payment processor of the caller's environment (the sandbox simulator for test keys). */
  processor: PaymentProcessor;
  /** DNS, for custom domains' verification. */
  dns: DnsResolver;
  /** The channels that deliver the caller's environment's emails and SMS. */
  messaging: MessageChannels;
  /** Where files' bytes live, and the signed links to them. */
  files: FileAccess;
  /** Signed links for a customer's signature of a rental agreement. */
  signingLinks: SigningLinks;
  /** A booking's client secret (the browser booking of the embedded components) and its checkout's hosted payment page. */
  browserBooking: BrowserBookingLinks;
  /** The identity provider of the caller's environment (the sandbox for test keys). */
  identity: IdentityProvider;
  /** The caller's clock: real time, plus the business's sandbox clock for test keys. */
  now(): Date;
  /** The sandbox clock moved: callers cached in this process must see it at once. */
  onClockChanged(): void;
  /** A member's role changed or the member left: keys cached in this process must be read again. */
  onAccessChanged(): void;
  /** The origin clients reach the service at (`https://api.example.com`), for the links it hands out. */
  publicUrl(): string;
}
