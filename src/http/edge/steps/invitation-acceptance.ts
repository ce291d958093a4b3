import type { PrismaClient } from '../../../generated/prisma/client.ts';
import { acceptInvitation, type InvitationAcceptanceDeps } from '../../../domain/team/accept-invitation.ts';
import { createSignInLink, signInUrl } from '../../../ops/sessions.ts';
import { presentTeamMember } from '../../../domain/team/team.fields.ts';
import { EdgeErrors } from '../../edge.errors.ts';
import { jsonObjectBody } from '../../input-safety.ts';
import { rateLimitHeaders, type RateDecision, type RateLimiter } from '../../rate-limit.ts';
import { jsonAnswer, type EdgeContext, type EdgeStep } from '../runner.ts';
import { clientOf } from './client.ts';

const LINK = /^\/v1\/team\/invitations\/(inv_[0-9a-z]{1,60})\/accept$/;
const MINUTE_MS = 60_000;

/**
 * An accept link answers no key, so the per-key limit cannot hold it: its uses are counted a
 * minute at a time, per client address (one client trying many links; behind a trusted proxy,
 * the address it names: TRUST_PROXY) and per invitation (one link tried from many addresses),
 * in the service's limiter (shared through Redis when set).
 */
async function limitUses(ctx: EdgeContext, limiter: RateLimiter, limit: number, invitationId: string): Promise<void> {
  const counts: [RateDecision, string][] = [
    [await limiter.hit(`invitation-accept:address:${clientOf(ctx).address ?? 'unknown'}`, limit, MINUTE_MS), 'from this address'],
    [await limiter.hit(`invitation-accept:invitation:${invitationId}`, limit, MINUTE_MS), 'for this invitation'],
  ];
  const [decision, per] = counts.find(([d]) => !d.allowed) ?? counts.reduce((a, b) => (b[0].remaining < a[0].remaining ? b : a));
  Object.assign(ctx.headers, rateLimitHeaders(decision));
  if (!decision.allowed) {
    ctx.headers['Retry-After'] = String(decision.resetSeconds);
    throw EdgeErrors.rateLimited(decision.limit, decision.resetSeconds, per, 'minute');
  }
}

/**
 * POST /v1/team/invitations/{id}/accept?token=...: the invitee joins the team with their
 * `name`. No API key: the link's one-time token is the authorization, as with a signed file
 * link. Answers 201 with the new team member, and `ops_sign_in_url`: a one-time link (15
 * minutes) that signs the new member in to the ops screen, in the inviter's environment.
 * Over INVITATION_ACCEPT_RATE_LIMIT uses a minute from one address or of one invitation: 429
 * rate_limited with Retry-After, before the token is even looked at.
 */
export function invitationAcceptanceStep(
  deps: InvitationAcceptanceDeps & { prisma: PrismaClient; bodyLimitBytes: number; now(): Date; publicUrl?: string; limiter: RateLimiter; limit: number },
): EdgeStep {
  return {
    name: 'invitation-acceptance',
    run(ctx) {
      const { request } = ctx;
      if (!request.pathname.startsWith('/v1/team/invitations/') || !LINK.test(request.pathname)) return;
      ctx.template = '/v1/team/invitations/{id}/accept';
      if (request.method !== 'POST') {
        ctx.headers.Allow = 'POST';
        throw EdgeErrors.methodNotAllowed('An invitation is accepted with POST (a JSON body with your `name`).');
      }
      const invitationId = LINK.exec(request.pathname)![1];
      return (async () => {
        await limitUses(ctx, deps.limiter, deps.limit, invitationId);
        const body = jsonObjectBody((await request.bytes(deps.bodyLimitBytes)).toString('utf8'));
        const { member, livemode } = await acceptInvitation(deps, { invitationId, token: request.searchParams.get('token'), body, requestId: ctx.requestId, now: deps.now() });
        const link = await createSignInLink(deps.prisma, { businessId: member.businessId, memberId: member.id, livemode, now: deps.now() });
        ctx.answer = jsonAnswer(201, { ...presentTeamMember(member, livemode), ops_sign_in_url: signInUrl(deps.publicUrl ?? request.origin, link.token) });
      })();
    },
  };
}
