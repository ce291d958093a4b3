/** The signed-in team member, as GET /ops/session answers. */
export interface OpsSession {
  livemode: boolean;
  business: { id: string; name: string };
  member: { id: string; email: string; name: string | null; role: string };
  permissions: string[] | 'all';
  csrf_token: string;
  expires_at: string;
}

/** An error of the service, in its envelope (REST) or a GraphQL error's extensions. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The section's data could not be read with this member's role. */
export const NO_ACCESS = Symbol('no access');

const json = { 'content-type': 'application/json' };

async function envelopeError(res: Response): Promise<ApiError> {
  const body = await res.json().catch(() => null);
  const e = body?.error ?? body?.errors?.[0]?.extensions;
  return new ApiError(res.status, e?.code ?? 'unknown', e?.message ?? body?.errors?.[0]?.message ?? `HTTP ${res.status}`);
}

/** The session of the cookie (null: not signed in). */
export async function currentSession(): Promise<OpsSession | null> {
  const res = await fetch('/ops/session', { credentials: 'same-origin' });
  if (res.status === 401) return null;
  if (!res.ok) throw await envelopeError(res);
  return res.json();
}

/** Use a sign-in link's token: the answer sets the session cookie. */
export async function signIn(token: string): Promise<OpsSession> {
  const res = await fetch('/ops/session', { method: 'POST', credentials: 'same-origin', headers: json, body: JSON.stringify({ token }) });
  if (!res.ok) throw await envelopeError(res);
  return res.json();
}

export async function signOut(session: OpsSession): Promise<void> {
  await fetch('/ops/session', { method: 'DELETE', credentials: 'same-origin', headers: { 'x-csrf-token': session.csrf_token } });
}

export function can(session: OpsSession, permission: string): boolean {
  return session.permissions === 'all' || session.permissions.includes(permission);
}

/**
 * A GraphQL operation as the signed-in member (the cookie, and the session's CSRF token on
 * every request). A refusal for lack of permission is NO_ACCESS; any other error throws.
 */
export async function gql<T>(session: OpsSession, query: string, variables: Record<string, unknown> = {}): Promise<T | typeof NO_ACCESS> {
  const res = await fetch('/graphql', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { ...json, 'x-csrf-token': session.csrf_token },
    body: JSON.stringify({ query, variables }),
  });
  const body = await res.json().catch(() => null);
  const error = body?.error ?? body?.errors?.[0]?.extensions;
  if (error?.code === 'permission_denied') return NO_ACCESS;
  if (!res.ok || body?.errors?.length) throw new ApiError(res.status, error?.code ?? 'unknown', error?.message ?? body?.errors?.[0]?.message ?? `HTTP ${res.status}`);
  return body.data as T;
}
