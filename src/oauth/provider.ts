import { generateKeyPairSync } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { default as Provider, Configuration, KoaContextWithOIDC } from 'oidc-provider';
import Cookies from 'cookies';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { ALL_PERMISSIONS } from '../domain/access/permissions.ts';
import { hashClientSecret } from '../domain/apps/client-credentials.ts';
import { log } from '../log.ts';
import { prismaAdapter, type OAuthTenants } from './adapter.ts';

/*
 * The authorization server of OAuth apps (the contract, "OAuth apps"): oidc-provider,
 * configured, its Koa callback mounted for /oauth/* and the RFC 8414 metadata. Codes, tokens,
 * PKCE, client authentication, rotation and reuse detection are the library's; the service
 * supplies its storage (src/oauth/adapter.ts), its consent page
 * (src/http/edge/steps/oauth-consent.ts) and the business a grant connects.
 */

export const OAUTH_METADATA_PATH = '/.well-known/oauth-authorization-server';
export const CONSENT_PATH = '/oauth/consent';
/** The library's cookie naming the authorization a browser started (`provider.cookieName('interaction')`). */
const INTERACTION_COOKIE = '_interaction';
/** Where the library's own OpenID discovery document is served; the RFC 8414 path is answered from it. */
const DISCOVERY_PATH = '/.well-known/openid-configuration';

export const ACCESS_TOKEN_TTL_S = 3600;
export const CODE_TTL_S = 600;
export const REFRESH_TOKEN_TTL_S = 90 * 86_400;

/** The account of a grant: the business it connects, in one environment (`biz_...:test`). */
export function accountOf(businessId: string, livemode: boolean): string {
  return `${businessId}:${livemode ? 'live' : 'test'}`;
}

export function parseAccount(accountId: string): { businessId: string; livemode: boolean } | null {
  const m = /^(biz_[a-z0-9]+):(live|test)$/.exec(accountId);
  return m ? { businessId: m[1], livemode: m[2] === 'live' } : null;
}

/** Paths the library answers itself (the consent page is the edge's: CONSENT_PATH). */
export function isOAuthPath(pathname: string): boolean {
  if (pathname === OAUTH_METADATA_PATH) return true;
  if (!pathname.startsWith('/oauth/')) return false;
  return pathname !== CONSENT_PATH && !pathname.startsWith(`${CONSENT_PATH}/`) && pathname !== `${CONSENT_PATH}.js`;
}

export interface OAuthServer {
  /** How the server reaches apps and connections (the token caller reads them the same way). */
  readonly tenants: OAuthTenants;
  /** The provider whose issuer is `origin` (the service's public URL when configured). */
  provider(origin: string): Promise<Provider>;
  /** Any provider of this process (reading a token needs no issuer). */
  anyProvider(): Promise<Provider>;
  /**
   * Whether the browser that sent `cookieHeader` is the one the authorization `uid` began in:
   * it holds the library's signed interaction cookie for it.
   */
  startedHere(cookieHeader: string | null, uid: string): boolean;
  /** Serve a request of isOAuthPath. */
  serve(req: IncomingMessage, res: ServerResponse, origin: string): void;
}

export interface OAuthServerDeps {
  prisma: PrismaClient;
  /** Apps and connections are tenants' rows: read through their owner's scope. */
  tenants: OAuthTenants;
  /** Signs the library's cookies (shared by every process: platformSecret 'oauth_cookies'). */
  cookieKey: string;
  publicUrl: string | undefined;
  /** A grant was revoked by the library (a reused code or refresh token, RFC 7009 of a refresh token). */
  onGrantRevoked(grantId: string): Promise<void>;
}

export function createOAuthServer(deps: OAuthServerDeps): OAuthServer {
  const providers = new Map<string, Promise<Provider>>();
  const callbacks = new WeakMap<Provider, (req: IncomingMessage, res: ServerResponse) => unknown>();
  // The library and a signing key are made on the first OAuth request, not at start-up (its
  // import alone takes a good part of a second). The key is the library's need for ID tokens,
  // which these grants never issue (no openid scope).
  let signingKey: ReturnType<typeof makeKey> | undefined;
  const makeKey = () => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });

  async function make(issuer: string): Promise<Provider> {
    const { default: ProviderClass } = await import('oidc-provider');
    signingKey ??= makeKey();
    const configuration: Configuration = {
      adapter: prismaAdapter(deps.prisma, deps.tenants),
      clients: [],
      jwks: { keys: [{ ...signingKey, kid: 'oauth-1', use: 'sig', alg: 'RS256' } as never] },
      cookies: { keys: [deps.cookieKey], long: { signed: true }, short: { signed: true } },
      scopes: [...ALL_PERMISSIONS],
      claims: { openid: ['sub'] },
      responseTypes: ['code'],
      pkce: { required: () => true },
      clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
      allowOmittingSingleRegisteredRedirectUri: false,
      features: {
        devInteractions: { enabled: false },
        revocation: { enabled: true },
        introspection: { enabled: false },
        userinfo: { enabled: false },
        rpInitiatedLogout: { enabled: false },
      },
      routes: { authorization: '/oauth/authorize', token: '/oauth/token', revocation: '/oauth/revoke', jwks: '/oauth/jwks' },
      ttl: { AccessToken: ACCESS_TOKEN_TTL_S, AuthorizationCode: CODE_TTL_S, RefreshToken: REFRESH_TOKEN_TTL_S, Grant: REFRESH_TOKEN_TTL_S, Interaction: CODE_TTL_S, Session: CODE_TTL_S },
      // Every grant comes with a refresh token, and each use of one rotates it; presenting a used one revokes the grant (the library's reuse detection).
      issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
      rotateRefreshToken: true,
      expiresWithSession: async () => false,
      // Consent is asked every time: a grant is a business's, chosen by a signed-in member on the consent page.
      loadExistingGrant: async (ctx) => {
        const grantId = ctx.oidc.result?.consent?.grantId;
        return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
      },
      findAccount: async (_ctx, sub) => (parseAccount(sub) ? { accountId: sub, claims: async () => ({ sub }) } : undefined),
      extraTokenClaims: async (_ctx, token) => {
        const account = 'accountId' in token && token.accountId ? parseAccount(token.accountId) : null;
        return account ? { business_id: account.businessId, livemode: account.livemode } : undefined;
      },
      interactions: { url: async (_ctx, interaction) => `${CONSENT_PATH}/${interaction.uid}` },
      renderError: async (ctx, out) => {
        ctx.type = 'json';
        ctx.body = out;
      },
    };
    const provider = new ProviderClass(issuer, configuration);
    // The app's secret is stored as its SHA-256 (client_secret holds the hash): the library's documented hook for hashed secrets.
    provider.Client.prototype.compareClientSecret = function compareClientSecret(this: { clientSecret: string }, actual: string) {
      return Promise.resolve(timingSafeHexEqual(this.clientSecret, hashClientSecret(actual)));
    } as never;
    provider.on('grant.revoked', (_ctx: unknown, grantId: string) => {
      deps.onGrantRevoked(grantId).catch((err: unknown) => log.error({ err, grant_id: grantId }, 'could not end the connection of a revoked grant'));
    });
    provider.on('server_error', (_ctx: unknown, err: unknown) => log.error({ err }, 'oauth server error'));
    // The token response names the connected business and environment (the contract's token shape).
    provider.use(async (ctx, next) => {
      await next();
      const oidc = (ctx as KoaContextWithOIDC).oidc;
      const body = ctx.body as Record<string, unknown> | undefined;
      if (oidc?.route === 'token' && ctx.status === 200 && body && typeof body.access_token === 'string') {
        const token = await provider.AccessToken.find(body.access_token);
        const account = token ? parseAccount(token.accountId) : null;
        if (account) ctx.body = { ...body, business_id: account.businessId, livemode: account.livemode };
      }
      if (oidc?.route === 'discovery' && ctx.status === 200 && body) {
        ctx.body = {
          issuer: body.issuer,
          authorization_endpoint: body.authorization_endpoint,
          token_endpoint: body.token_endpoint,
          revocation_endpoint: body.revocation_endpoint,
          scopes_supported: [...ALL_PERMISSIONS],
          response_types_supported: ['code'],
          grant_types_supported: ['authorization_code', 'refresh_token'],
          code_challenge_methods_supported: body.code_challenge_methods_supported,
          token_endpoint_auth_methods_supported: body.token_endpoint_auth_methods_supported,
          revocation_endpoint_auth_methods_supported: body.revocation_endpoint_auth_methods_supported,
          authorization_response_iss_parameter_supported: body.authorization_response_iss_parameter_supported,
        };
      }
    });
    return provider;
  }

  function provider(origin: string): Promise<Provider> {
    const issuer = deps.publicUrl ?? origin;
    let p = providers.get(issuer);
    if (!p) {
      p = make(issuer);
      providers.set(issuer, p);
      p.catch(() => providers.delete(issuer));
    }
    return p;
  }

  return {
    tenants: deps.tenants,
    provider,
    startedHere(cookieHeader, uid) {
      if (!cookieHeader) return false;
      // The library's own cookie jar (cookies, as Koa reads them), over the request's Cookie header only.
      const jar = new Cookies({ headers: { cookie: cookieHeader } } as IncomingMessage, { getHeader: () => undefined, setHeader: () => {} } as unknown as ServerResponse, { keys: [deps.cookieKey] });
      return jar.get(INTERACTION_COOKIE, { signed: true }) === uid;
    },
    anyProvider: () => providers.values().next().value ?? provider(deps.publicUrl ?? 'http://localhost'),
    serve(req, res, origin) {
      const url = req.url ?? '/';
      if (url === OAUTH_METADATA_PATH || url.startsWith(`${OAUTH_METADATA_PATH}?`)) req.url = DISCOVERY_PATH + url.slice(OAUTH_METADATA_PATH.length);
      provider(origin).then(
        (p) => {
          let callback = callbacks.get(p);
          if (!callback) callbacks.set(p, (callback = p.callback()));
          void callback(req, res);
        },
        (err: unknown) => {
          log.error({ err }, 'the authorization server could not start');
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: 'server_error', error_description: 'The authorization server could not start.' }));
        },
      );
    },
  };
}

function timingSafeHexEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
