import type { Logger } from 'pino';
import { Prisma, type PrismaClient } from '../generated/prisma/client.ts';
import { log } from '../log.ts';

/** A business in one environment: what the tenant scope (tenant-db.ts) is opened with. */
interface EnvironmentOwner {
  businessId: string;
  livemode: boolean;
}

/** An owner whose links expire by its own clock. */
interface ClockedOwner extends EnvironmentOwner {
  /** How far the owner's clock runs ahead of real time: its business's sandbox clock in the test environment, 0 in live. */
  clockOffsetSeconds: number;
}

/**
 * What each kind of reference answers: whose it is, and only what checking the credential
 * that names it needs. Nothing else of the row: the rest is read through the owner's scope.
 */
export interface OwnerOf {
  /** A file (file_...) named by a signed upload or download link. */
  file: ClockedOwner;
  /** An agreement (agr_...) named by a signing link. */
  agreement: ClockedOwner;
  /** A booking (bk_...) named by the link to its checkout's hosted payment page. */
  booking: ClockedOwner;
  /**
   * An invitation (inv_...) named by an accept link; the team belongs to both environments, so
   * no environment, but the clock of the one that invited (the sandbox's for a test key's).
   */
  invitation: { businessId: string; tokenHash: string | null; clockOffsetSeconds: number };
  /** An identity provider's session (vs_...) named by its events. */
  identity_session: EnvironmentOwner;
  /** A payment processor's payment (pi_...) named by its events. */
  processor_payment: EnvironmentOwner;
  /** An OAuth app named by its client_id (at the authorization server and its consent page). */
  oauth_client: EnvironmentOwner;
  /** A business's connection to an OAuth app, named by the authorization server's grant (an access token's, a refresh token's). */
  oauth_grant: EnvironmentOwner;
}

export type ReferenceKind = keyof OwnerOf;

/** The one question asked across businesses, for the links and events that arrive without an API key. */
export interface OwnerLookup {
  /** Whose is the token or link naming `id`: null when no row of this kind has it. */
  resolveOwner<K extends ReferenceKind>(kind: K, id: string): Promise<OwnerOf[K] | null>;
}

/** The owner of a row that has an environment, with its clock (a business row may be missing: no foreign key names it). */
const clocked = (table: 'File' | 'Agreement' | 'Booking', id: string) =>
  Prisma.sql`SELECT t."businessId", t."livemode", CASE WHEN t."livemode" THEN 0 ELSE COALESCE(b."sandboxClockOffsetSeconds", 0) END AS "clockOffsetSeconds"
    FROM ${Prisma.raw(`"${table}"`)} t LEFT JOIN "Business" b ON b."id" = t."businessId" WHERE t."id" = ${id}`;

/** One fixed statement per kind, selecting exactly the fields of its answer. */
const STATEMENTS: { readonly [K in ReferenceKind]: (id: string) => Prisma.Sql } = {
  file: (id) => clocked('File', id),
  agreement: (id) => clocked('Agreement', id),
  booking: (id) => clocked('Booking', id),
  invitation: (id) =>
    Prisma.sql`SELECT i."businessId", i."tokenHash", CASE WHEN i."originLivemode" THEN 0 ELSE COALESCE(b."sandboxClockOffsetSeconds", 0) END AS "clockOffsetSeconds"
      FROM "Invitation" i LEFT JOIN "Business" b ON b."id" = i."businessId" WHERE i."id" = ${id}`,
  identity_session: (id) => Prisma.sql`SELECT "businessId", "livemode" FROM "IdentityVerification" WHERE "providerSessionId" = ${id}`,
  // The processor's ids are its own and unique (indexed, not constrained).
  processor_payment: (id) => Prisma.sql`SELECT "businessId", "livemode" FROM "Payment" WHERE "processorPaymentId" = ${id} LIMIT 1`,
  oauth_client: (id) => Prisma.sql`SELECT "businessId", "livemode" FROM "App" WHERE "clientId" = ${id}`,
  oauth_grant: (id) => Prisma.sql`SELECT "businessId", "livemode" FROM "ConnectedApp" WHERE "grantId" = ${id}`,
};

/**
 * The only way domain code learns whose a token or link is before it opens that owner's
 * scope. Every call is recorded at debug level: the kind, the id looked up and whether an
 * owner was found; never the token, a hash or anything the row holds.
 */
export function ownerLookup(prisma: PrismaClient, logger: Pick<Logger, 'debug'> = log): OwnerLookup {
  return {
    async resolveOwner<K extends ReferenceKind>(kind: K, id: string): Promise<OwnerOf[K] | null> {
      if (!Object.hasOwn(STATEMENTS, kind)) throw new TypeError(`no owner look-up for references of kind '${String(kind)}'`);
      let rows: OwnerOf[K][];
      try {
        rows = await prisma.$queryRaw<OwnerOf[K][]>(STATEMENTS[kind](id));
      } catch (err) {
        logger.debug({ kind, id, found: false, failed: true }, 'owner lookup');
        throw err;
      }
      logger.debug({ kind, id, found: rows.length > 0 }, 'owner lookup');
      return rows[0] ?? null;
    },
  };
}
