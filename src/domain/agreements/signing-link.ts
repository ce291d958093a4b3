import { z } from 'zod';
import type { TenantDb, TenantDbFactory } from '../../db/tenant-db.ts';
import type { OwnerLookup } from '../../db/owner-lookup.ts';
import type { Agreement } from '../../generated/prisma/client.ts';
import { expireHolds } from '../bookings/booking-holds.ts';
import type { EventOrigin } from '../events/event.service.ts';
import { downloadLink, type FileAccess, type FileOwner } from '../files/file-links.ts';
import { parseInput } from '../shared/validation.ts';
import { AgreementErrors } from './agreement.errors.ts';
import type { SigningLinkSigner } from './agreement-links.ts';
import { recordAgreementSigned } from './agreement-signing.ts';

/*
 * The customer's side of the agreement: no API key, the signed link is the authorization (as
 * with the file links). Whatever is wrong with a link (altered, another business's or
 * environment's, a replaced version, expired) is refused before anything is read for the
 * caller or written.
 */

export interface SigningLinkDeps {
  owners: OwnerLookup;
  tenantDb: TenantDbFactory;
  signer: SigningLinkSigner;
  /** File links of the agreement's business and environment. */
  files(owner: FileOwner): FileAccess;
  /** Real time; the sandbox's clock is added for test agreements. */
  now(): Date;
}

interface LinkedAgreement {
  db: TenantDb;
  agreement: Agreement;
  /** The agreement's business's clock (its sandbox clock in the test environment). */
  now: Date;
  linkExpiresAt: Date;
}

/** The agreement a link names, in its own business's scope, once the link proves to be for its current version. */
async function linkedAgreement(deps: SigningLinkDeps, agreementId: string, params: URLSearchParams): Promise<LinkedAgreement> {
  // The one question asked across businesses: whose agreement the link names.
  const found = await deps.owners.resolveOwner('agreement', agreementId);
  const version = deps.signer.versionOf(params);
  if (!found || version === null) throw AgreementErrors.signingLinkInvalid('invalid');
  const owner = { businessId: found.businessId, livemode: found.livemode };
  const now = new Date(deps.now().getTime() + found.clockOffsetSeconds * 1000);
  const verdict = deps.signer.verify({ ...owner, agreementId, version }, params, now);
  if (verdict === 'invalid') throw AgreementErrors.signingLinkInvalid('invalid');
  const db = deps.tenantDb(owner);
  const agreement = await db.agreement.findUniqueOrThrow({ where: { id: agreementId } });
  if (agreement.state === 'voided') throw AgreementErrors.signingLinkInvalid('voided');
  if (agreement.version !== version) throw AgreementErrors.signingLinkInvalid('superseded');
  if (verdict === 'expired') throw AgreementErrors.signingLinkInvalid('expired');
  return { db, agreement, now, linkExpiresAt: new Date(Number(params.get('expires')) * 1000) };
}

/** What the signer is shown: the agreement's summary and a short-lived link to its PDF. */
async function signingPage(deps: SigningLinkDeps, linked: LinkedAgreement) {
  const { db, agreement } = linked;
  const booking = await db.booking.findUniqueOrThrow({ where: { id: agreement.bookingId }, include: { customer: true, vehicle: true } });
  const business = await db.business.findUniqueOrThrow({ where: { id: agreement.businessId }, select: { name: true } });
  const file = agreement.fileId ? await db.file.findUnique({ where: { id: agreement.fileId } }) : null;
  // File links are checked on the clock of the file's environment (the sandbox's for test files).
  const document = file ? downloadLink(deps.files({ businessId: agreement.businessId, livemode: agreement.livemode }), file, linked.now) : null;
  return {
    object: 'agreement_signing',
    agreement_id: agreement.id,
    booking_id: booking.id,
    livemode: agreement.livemode,
    business_name: business.name,
    state: agreement.state,
    version: agreement.version,
    customer_name: booking.customer.name,
    vehicle_name: booking.vehicle.name,
    start_at: booking.startAt.toISOString(),
    end_at: booking.endAt.toISOString(),
    total_cents: booking.totalCents,
    deposit_cents: booking.depositCents,
    currency: booking.currency,
    document_sha256: agreement.documentSha256,
    document_url: document?.url ?? null,
    document_url_expires_at: document?.expiresAt.toISOString() ?? null,
    link_expires_at: linked.linkExpiresAt.toISOString(),
    signed_at: agreement.signedAt?.toISOString() ?? null,
    signer_name: agreement.signedAt ? agreement.signerName : null,
  };
}

export type SigningPage = Awaited<ReturnType<typeof signingPage>>;

/** GET on the link: the summary to read before signing. */
export async function readSigningLink(deps: SigningLinkDeps, agreementId: string, params: URLSearchParams): Promise<SigningPage> {
  return signingPage(deps, await linkedAgreement(deps, agreementId, params));
}

/** A printable name: no control characters (the edge has already refused NULs and broken UTF-16). */
const signerName = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .refine((name) => !/\p{Cc}/u.test(name), 'must be a printable name');

const signInput = z.strictObject({
  signer_name: signerName.meta({ description: 'The full name of the person signing.' }),
  accept: z.boolean().meta({ description: 'Must be true: the signer accepts the agreement as shown.' }),
});

/** Where the signature came from (the request's). */
export interface SigningRequest {
  ip: string | null;
  userAgent: string | null;
  requestId: string;
}

/**
 * POST on the link: the signature. Who (the name given, the request's IP address and user
 * agent), when, and the SHA-256 of the version the link is for are recorded; the agreement
 * is signed (agreement.signed), the booking's agreement gate satisfied and the booking
 * advanced, all in one transaction.
 */
export async function signThroughLink(deps: SigningLinkDeps, agreementId: string, params: URLSearchParams, body: unknown, request: SigningRequest): Promise<SigningPage> {
  const linked = await linkedAgreement(deps, agreementId, params);
  const input = parseInput(signInput, body);
  if (input.accept !== true) throw AgreementErrors.notAccepted();
  const { db, agreement, now } = linked;
  const origin: EventOrigin = { businessId: agreement.businessId, livemode: agreement.livemode, requestId: request.requestId, idempotencyKey: null };
  await expireHolds(db, now, { id: agreement.bookingId });
  await db.$transaction(async (tx) => {
    const booking = await tx.booking.findUniqueOrThrow({ where: { id: agreement.bookingId } });
    await recordAgreementSigned(tx, origin, booking, now, {
      name: input.signer_name,
      ip: request.ip,
      userAgent: request.userAgent?.slice(0, 500) ?? null,
      version: agreement.version,
      agreementId: agreement.id,
    });
  });
  return signingPage(deps, { ...linked, agreement: await db.agreement.findUniqueOrThrow({ where: { id: agreement.id } }) });
}
