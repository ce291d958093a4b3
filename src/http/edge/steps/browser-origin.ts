import type { TenantDbFactory } from '../../../db/tenant-db.ts';
import { AccessErrors } from '../../../domain/access/access.errors.ts';
import { whenReady, type EdgeStep } from '../runner.ts';

/** How long a business's allowed origins are kept in this process: a change is seen within this time. */
const ORIGINS_CACHE_MS = 5_000;

/** The sandbox's local development origins: http://localhost:<port> and http://127.0.0.1:<port>. */
const LOCAL_ORIGIN = /^http:\/\/(localhost|127\.0\.0\.1)(:[0-9]{1,5})?$/;

/**
 * The origins whose browsers may use a business's publishable keys (the contract's "Embedded
 * booking components"): its website's `allowed_origins`, its verified custom domains (https),
 * and in the sandbox http://localhost and http://127.0.0.1 on any port.
 */
export function browserOrigins(tenantDb: TenantDbFactory) {
  const cache = new Map<string, { origins: ReadonlySet<string>; until: number }>();
  const load = async (businessId: string, livemode: boolean): Promise<ReadonlySet<string>> => {
    const db = tenantDb({ businessId, livemode });
    const [website, domains] = await Promise.all([
      db.website.findUnique({ where: { businessId_livemode: { businessId, livemode } }, select: { allowedOrigins: true } }),
      db.domain.findMany({ where: { state: 'verified' }, select: { hostname: true } }),
    ]);
    const origins = new Set([...(website?.allowedOrigins ?? []), ...domains.map((d) => `https://${d.hostname}`)]);
    if (cache.size > 10_000) cache.clear();
    cache.set(`${businessId}:${livemode}`, { origins, until: Date.now() + ORIGINS_CACHE_MS });
    return origins;
  };
  return {
    /** Whether `origin` may use the keys of this business and environment; at once when its origins were read recently. */
    allows(businessId: string, livemode: boolean, origin: string): boolean | Promise<boolean> {
      if (!livemode && LOCAL_ORIGIN.test(origin)) return true;
      const cached = cache.get(`${businessId}:${livemode}`);
      if (cached && cached.until > Date.now()) return cached.origins.has(origin);
      return load(businessId, livemode).then((origins) => origins.has(origin));
    },
  };
}

export type BrowserOrigins = ReturnType<typeof browserOrigins>;

/**
 * A publishable key used from a browser (the request has an Origin) is answered only for the
 * origins its business allows: another origin is refused (403 origin_not_allowed) before
 * anything runs, and its answer carries no Access-Control-Allow-Origin (the cors step), so
 * the page cannot read it either. Server-side calls (no Origin) and secret keys are not concerned.
 */
export function browserOriginStep(origins: BrowserOrigins): EdgeStep {
  return {
    name: 'browser-origin',
    run(ctx) {
      const principal = ctx.principal;
      const origin = ctx.request.header('origin');
      if (!principal || principal.keyKind !== 'publishable' || origin === null) return;
      return whenReady(origins.allows(principal.businessId, principal.livemode, origin), (allowed) => {
        ctx.browserOrigin = allowed ? 'allowed' : 'refused';
        if (!allowed) throw AccessErrors.originNotAllowed(origin);
      });
    },
  };
}
