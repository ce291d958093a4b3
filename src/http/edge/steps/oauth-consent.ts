import type { PrismaClient } from '../../../generated/prisma/client.ts';
import type { TenantDbFactory } from '../../../db/tenant-db.ts';
import { isPermission, type Permission } from '../../../domain/access/permissions.ts';
import { connectApp } from '../../../domain/apps/connected-apps.ts';
import { CommonErrors } from '../../../domain/shared/common.errors.ts';
import { forgetCachedPrincipals } from '../../../platform/api-keys.ts';
import { csrfTokenOf, openSession, sessionTokenOf } from '../../../ops/sessions.ts';
import { appOfClient } from '../../../oauth/adapter.ts';
import { OAuthErrors } from '../../../oauth/oauth.errors.ts';
import { accountOf, CONSENT_PATH, type OAuthServer } from '../../../oauth/provider.ts';
import { OpsErrors } from '../../../ops/ops.errors.ts';
import { EdgeErrors } from '../../edge.errors.ts';
import { jsonObjectBody } from '../../input-safety.ts';
import { jsonAnswer, type EdgeAnswer, type EdgeContext, type EdgeStep } from '../runner.ts';
import { checkCookieRequest, PAGE_HEADERS } from './ops-screen.ts';

/*
 * The consent page of OAuth apps (/oauth/consent/{uid}): where the library's /oauth/authorize
 * sends the business's browser. It needs the ops screen's signed-in team member (its session
 * cookie, its Origin and CSRF rules, its page headers: nothing framed, scripts of this
 * service only). It names the app and each scope in words; an owner or admin approves
 * (granting only scopes it holds), anyone signed in may deny. The decision is handed back to
 * the library, which issues the code (or error=access_denied) at the redirect URI.
 */

export interface OAuthConsentDeps {
  prisma: PrismaClient;
  tenantDb: TenantDbFactory;
  oauth: OAuthServer;
  now(): Date;
  bodyLimitBytes: number;
}

const UID = /^\/oauth\/consent\/([A-Za-z0-9_-]{1,100})$/;
const SCRIPT_PATH = `${CONSENT_PATH}.js`;

const GROUP_WORDS: Record<string, string> = {
  business: "the business's profile and settings", team: 'team members and invitations', vehicles: 'vehicles and their pricing', quotes: 'quotes',
  bookings: 'bookings', payments: 'payments and refunds', deposits: 'security deposits', identity: 'identity verifications', agreements: 'rental agreements',
  insurance: 'insurance documents', pickup: 'pickups', vehicle_access: 'vehicle access (unlock codes)', returns: 'vehicle returns', charges: 'post-trip charges',
  disputes: 'disputes', customers: 'customers', messages: 'messages to customers', website: 'the website and its branding', domains: 'custom domains',
  files: 'uploaded files', reports: 'reports', webhooks: 'webhook endpoints', events: 'events',
};

/** A scope in words, as the consent page shows it. */
export function scopeInWords(scope: Permission): string {
  const [group, access] = scope.split(':');
  return `${access === 'read' ? 'See' : 'Create and change'} ${GROUP_WORDS[group] ?? group}`;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function htmlAnswer(status: number, body: string): EdgeAnswer {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Connect an app</title><meta name="viewport" content="width=device-width"></head><body>${body}</body></html>`;
  return { status, headers: { 'content-type': 'text/html; charset=utf-8', 'content-length': String(Buffer.byteLength(html)), 'cache-control': 'no-store', ...PAGE_HEADERS }, body: html };
}

/** The page's script: the decision is POSTed with the session's CSRF token, then the browser follows the library's redirect. */
const SCRIPT = `
const form = document.getElementById('consent');
const error = document.getElementById('error');
async function decide(decision) {
  error.textContent = '';
  const res = await fetch(location.pathname, { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': form.dataset.csrf }, body: JSON.stringify({ decision }) });
  const body = await res.json();
  if (res.ok) location.assign(body.redirect_to);
  else error.textContent = body.error.message;
}
document.getElementById('approve').addEventListener('click', () => decide('approve'));
document.getElementById('deny').addEventListener('click', () => decide('deny'));
`;

export function oauthConsentStep(deps: OAuthConsentDeps): EdgeStep {
  /** The authorization request waiting for a decision, and its app. */
  async function pending(ctx: EdgeContext, uid: string) {
    const interaction = await (await deps.oauth.provider(ctx.request.origin)).Interaction.find(uid);
    if (!interaction) throw OAuthErrors.authorizationExpired();
    // Only the browser that began the authorization may decide it: a link to another's consent page is refused.
    if (!deps.oauth.startedHere(ctx.request.header('cookie'), uid)) throw OAuthErrors.authorizationOtherBrowser();
    const app = await appOfClient(deps.oauth.tenants, String(interaction.params.client_id ?? ''));
    if (!app) throw OAuthErrors.authorizationExpired();
    const scopes = String(interaction.params.scope ?? '').split(' ').filter(isPermission);
    return { interaction, app, scopes };
  }

  async function page(ctx: EdgeContext, uid: string): Promise<EdgeAnswer> {
    const token = sessionTokenOf(ctx.request.header('cookie'));
    checkCookieRequest(ctx, token);
    const { app, scopes } = await pending(ctx, uid);
    if (!token) {
      return htmlAnswer(401, `<main><h1>Sign in to connect ${escapeHtml(app.name)}</h1><p>Connecting an app needs a team member signed in to the <a href="/ops">ops screen</a> of this service. Sign in with a link from your administrator, then open this page again.</p></main>`);
    }
    const { member, businessName, principal } = await openSession(deps.prisma, token, deps.now());
    const items = scopes.map((s) => `<li data-scope="${escapeHtml(s)}">${escapeHtml(scopeInWords(s))} <code>${escapeHtml(s)}</code></li>`).join('');
    return htmlAnswer(
      200,
      `<main><h1>Connect ${escapeHtml(app.name)} to ${escapeHtml(businessName)}</h1>` +
        `<p><strong>${escapeHtml(app.name)}</strong> asks to act on ${escapeHtml(businessName)} in ${principal.livemode ? 'live' : 'test'} mode. It will be able to:</p>` +
        `<ul id="scopes">${items}</ul>` +
        `<p>Signed in as ${escapeHtml(member.email)} (${member.role}). You can disconnect the app at any time.</p>` +
        `<div id="consent" data-csrf="${escapeHtml(csrfTokenOf(token))}"><button id="approve" type="button">Approve</button> <button id="deny" type="button">Deny</button></div>` +
        `<p id="error" role="alert"></p></main><script src="${SCRIPT_PATH}"></script>`,
    );
  }

  async function decide(ctx: EdgeContext, uid: string): Promise<EdgeAnswer> {
    const token = sessionTokenOf(ctx.request.header('cookie'));
    checkCookieRequest(ctx, token, { originRequired: true });
    if (!token) throw OpsErrors.sessionRequired();
    const body = jsonObjectBody((await ctx.request.bytes(deps.bodyLimitBytes)).toString('utf8'));
    const { interaction, app, scopes } = await pending(ctx, uid);
    const { member, principal } = await openSession(deps.prisma, token, deps.now());
    const provider = await deps.oauth.provider(ctx.request.origin);
    const finish = async (result: Record<string, unknown>) => {
      interaction.result = result;
      await interaction.save(Math.max(1, (interaction.exp ?? 0) - Math.floor(Date.now() / 1000)));
      return jsonAnswer(200, { redirect_to: interaction.returnTo }, { 'cache-control': 'no-store' });
    };
    if (body.decision === 'deny') return finish({ error: 'access_denied', error_description: 'The business declined to connect the app.' });
    if (body.decision !== 'approve') throw CommonErrors.parameterInvalid('decision', 'Invalid decision: must be "approve" or "deny".');
    if (member.role !== 'owner' && member.role !== 'admin') throw OAuthErrors.approverRoleRequired(member.role);
    if (app.livemode !== principal.livemode) throw OAuthErrors.appEnvironmentMismatch(app.livemode);
    const held = principal.permissions;
    const missing = held === 'all' ? [] : scopes.filter((s) => !held.has(s));
    if (missing.length) throw OAuthErrors.scopeNotHeld(missing);

    const accountId = accountOf(principal.businessId, principal.livemode);
    const tenant = { businessId: principal.businessId, livemode: principal.livemode };
    const connection = await connectApp(deps.tenantDb(tenant), { ...tenant, requestId: ctx.requestId, idempotencyKey: null }, {
      app,
      memberId: member.id,
      scopes,
      grant: {
        // The library's grant of the connection, kept across approvals of the same app (as its
        // own session grants are): this approval's scopes exactly, for a lifetime from now.
        async saveGrant(existingGrantId) {
          const grant = (existingGrantId ? await provider.Grant.find(existingGrantId) : undefined) ?? new provider.Grant({ accountId, clientId: app.clientId });
          const fields = grant as unknown as { openid?: unknown; rejected?: unknown; exp?: number };
          fields.openid = undefined;
          fields.rejected = undefined;
          fields.exp = undefined;
          grant.addOIDCScope(scopes.join(' '));
          return grant.save();
        },
      },
    });
    // Tokens cached in this process take the new scopes at once (in others within 5 s).
    forgetCachedPrincipals();
    const grantId = connection.grantId;
    return finish({ login: { accountId }, consent: { grantId } });
  }

  return {
    name: 'oauth-consent',
    run(ctx) {
      const p = ctx.request.pathname;
      if (p === SCRIPT_PATH) {
        ctx.template = SCRIPT_PATH;
        ctx.answer = { status: 200, headers: { 'content-type': 'text/javascript; charset=utf-8', 'content-length': String(Buffer.byteLength(SCRIPT)), 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' }, body: SCRIPT };
        return;
      }
      const m = UID.exec(p);
      if (!m) return;
      ctx.template = `${CONSENT_PATH}/{uid}`;
      const method = ctx.request.method;
      if (method === 'GET' || method === 'HEAD') return page(ctx, m[1]).then((a) => void (ctx.answer = a));
      if (method === 'POST') return decide(ctx, m[1]).then((a) => void (ctx.answer = a));
      ctx.headers.Allow = 'GET, POST';
      throw EdgeErrors.methodNotAllowed(`${method} is not allowed on ${CONSENT_PATH}/{uid}; use GET or POST.`);
    },
  };
}
