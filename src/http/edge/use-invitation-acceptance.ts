import { acceptInvitation, type InvitationAcceptanceDeps } from '../../domain/team/accept-invitation.ts';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { createSignInLink, signInUrl } from '../../ops/sessions.ts';
import { presentTeamMember } from '../../domain/team/team.fields.ts';
import { EdgeErrors } from '../edge.errors.ts';
import { jsonResponse } from '../error-envelope.ts';
import { jsonObjectBody } from '../input-safety.ts';
import { readBounded } from './use-body.ts';
import { refusing, type EdgePlugin } from './context.ts';

const LINK = /^\/v1\/team\/invitations\/(inv_[0-9a-z]{1,60})\/accept$/;

/**
 * POST /v1/team/invitations/{id}/accept?token=...: the invitee joins the team with their
 * `name`. No API key: the link's one-time token is the authorization, as with a signed file
 * link. Answers 201 with the new team member, and `ops_sign_in_url`: a one-time link (15
 * minutes) that signs the new member in to the ops screen, in the inviter's environment.
 */
export function useInvitationAcceptance(deps: InvitationAcceptanceDeps & { prisma: PrismaClient; bodyLimitBytes: number; now(): Date; publicUrl?: string }): EdgePlugin {
  const serve = refusing(async ({ url, request, serverContext }) => {
    if (request.method !== 'POST') {
      serverContext.headers.Allow = 'POST';
      throw EdgeErrors.methodNotAllowed('An invitation is accepted with POST (a JSON body with your `name`).');
    }
    const invitationId = LINK.exec(url.pathname)![1];
    const body = jsonObjectBody(await readBounded(request, deps.bodyLimitBytes));
    const { member, livemode } = await acceptInvitation(deps, { invitationId, token: url.searchParams.get('token'), body, requestId: serverContext.requestId, now: deps.now() });
    const link = await createSignInLink(deps.prisma, { businessId: member.businessId, memberId: member.id, livemode, now: deps.now() });
    return jsonResponse(201, { ...presentTeamMember(member, livemode), ops_sign_in_url: signInUrl(deps.publicUrl ?? url.origin, link.token) });
  });
  return {
    // Every other request passes at once, without a promise.
    onRequest: (payload) => (payload.url.pathname.startsWith('/v1/team/invitations/') && LINK.test(payload.url.pathname) ? serve(payload) : undefined),
  };
}
