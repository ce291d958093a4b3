import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { TenantDbFactory } from '../../../db/tenant-db.ts';
import { projectRoot } from '../../../project-root.ts';
import { STRIPE_JS_URL } from '../../../processors/stripe-js.ts';
import { EdgeErrors } from '../../edge.errors.ts';
import { jsonAnswer, type EdgeAnswer, type EdgeStep } from '../runner.ts';

/*
 * The embedded booking components (the contract's "Embedded booking components"), served by
 * the service itself: GET /embed/v1/components.js, one ES module built from embed/ into
 * dist/embed (scripts/build-embed.mjs), with CORS `*` (a module script is fetched in CORS mode
 * from any site); and GET /embed/v1/theme, the business's branding for the elements' styles
 * (and, live, the processor's payment form the payment step mounts), read with a key through
 * every step a key's request passes (its origin checked for a publishable key, its rate
 * limit), as a request of kind `embed` (routing).
 */

export const EMBED_SCRIPT_PATH = '/embed/v1/components.js';
export const EMBED_THEME_PATH = '/embed/v1/theme';
export const EMBED_DIST = path.join(projectRoot, 'dist', 'embed');

/** The script, read once per build (its modification time), with its ETag. */
function scriptReader(dist: string) {
  let cached: { mtimeMs: number; bytes: Uint8Array<ArrayBuffer>; etag: string } | null = null;
  return async () => {
    const file = path.join(dist, 'components.js');
    const s = await stat(file).catch(() => null);
    if (!s) throw EdgeErrors.componentsNotBuilt();
    if (cached?.mtimeMs !== s.mtimeMs) {
      const bytes = new Uint8Array(await readFile(file));
      cached = { mtimeMs: s.mtimeMs, bytes, etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"` };
    }
    return cached;
  };
}

/** GET /embed/v1/components.js, before any key is read; answered with its own CORS (`*`, no credentials). */
export function embedScriptStep(options: { distDir?: string } = {}): EdgeStep {
  const script = scriptReader(options.distDir ?? EMBED_DIST);
  return {
    name: 'embed-script',
    run(ctx) {
      const { method, pathname } = ctx.request;
      if (!pathname.startsWith('/embed/')) return;
      if (pathname === EMBED_THEME_PATH) return; // a key's request: routing, the key's steps, then embed-theme
      if (pathname !== EMBED_SCRIPT_PATH) throw EdgeErrors.routeNotFound(method, pathname);
      ctx.template = EMBED_SCRIPT_PATH;
      if (method !== 'GET' && method !== 'HEAD') {
        ctx.headers.Allow = 'GET';
        throw EdgeErrors.methodNotAllowed(`${method} is not allowed on ${pathname}; use GET.`);
      }
      return script().then(({ bytes, etag }) => {
        const headers: Record<string, string> = {
          'content-type': 'text/javascript; charset=utf-8',
          'access-control-allow-origin': '*',
          'cross-origin-resource-policy': 'cross-origin',
          'x-content-type-options': 'nosniff',
          // Versioned by its path (v1) and revalidated by its ETag: a new build reaches pages within minutes.
          'cache-control': 'public, max-age=300',
          etag,
        };
        if (ctx.request.header('if-none-match') === etag) {
          ctx.answer = { status: 304, headers, body: null };
          return;
        }
        ctx.answer = { status: 200, headers: { ...headers, 'content-length': String(bytes.length) }, body: method === 'HEAD' ? null : bytes };
      });
    },
  };
}

/** What the elements need of the business's settings: its branding, and in live mode the processor's payment form. */
export interface EmbedTheme {
  object: 'embed_theme';
  livemode: boolean;
  business_name: string;
  primary_color: string | null;
  secondary_color: string | null;
  accent_color: string | null;
  font: string | null;
  /**
   * Live: the processor whose payment form the payment step mounts (Stripe's Payment Element:
   * Stripe.js from `script_url`, with the platform's publishable key), null when live card
   * payments are not configured (STRIPE_PUBLISHABLE_KEY). Always null in the sandbox, whose
   * payment step is the test card's Pay and Decline.
   */
  payment: { processor: 'stripe'; publishable_key: string; script_url: string } | null;
}

/** GET /embed/v1/theme with a key (a publishable one from the embedding page): its business's branding, and the live payment form's settings. */
export function embedThemeStep(tenantDb: TenantDbFactory, stripe: { publishableKey?: string; jsUrl?: string } = {}): EdgeStep {
  const livePayment = stripe.publishableKey ? { processor: 'stripe' as const, publishable_key: stripe.publishableKey, script_url: stripe.jsUrl ?? STRIPE_JS_URL } : null;
  return {
    name: 'embed-theme',
    run(ctx) {
      const principal = ctx.principal;
      if (ctx.kind !== 'embed' || !principal) return;
      const owner = { businessId: principal.businessId, livemode: principal.livemode };
      const db = tenantDb(owner);
      return Promise.all([
        db.branding.findUnique({ where: { businessId_livemode: owner }, select: { primaryColor: true, secondaryColor: true, accentColor: true, font: true } }),
        db.business.findUnique({ where: { id: owner.businessId }, select: { name: true } }),
      ]).then(([branding, business]) => {
        const theme: EmbedTheme = {
          object: 'embed_theme',
          livemode: principal.livemode,
          business_name: business?.name ?? '',
          primary_color: branding?.primaryColor ?? null,
          secondary_color: branding?.secondaryColor ?? null,
          accent_color: branding?.accentColor ?? null,
          font: branding?.font ?? null,
          payment: principal.livemode ? livePayment : null,
        };
        ctx.answer = jsonAnswer(200, theme, { 'cache-control': 'private, max-age=60' }) satisfies EdgeAnswer;
      });
    },
  };
}
