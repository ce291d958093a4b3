import type { Invitation } from '../../generated/prisma/client.ts';
import { log } from '../../log.ts';
import { ChannelFailure } from '../messages/message-channels.ts';
import type { DomainContext } from '../shared/context.ts';

/** What the invitee reads: who invited them, as what, until when, and how to use the link. */
export function invitationEmailText(businessName: string, invitation: Pick<Invitation, 'role' | 'expiresAt'>, acceptUrl: string): string {
  return [
    `${businessName} invites you to join its team as ${invitation.role === 'admin' || invitation.role === 'agent' ? 'an' : 'a'} ${invitation.role}.`,
    '',
    `To accept, send your name to this link (a POST with a JSON body such as {"name": "Your Name"}), once${invitation.expiresAt ? `, before ${invitation.expiresAt.toISOString()}` : ''}:`,
    '',
    acceptUrl,
    '',
    'The answer carries a link that signs you in to the operations screen. If you did not expect this invitation, ignore this email.',
  ].join('\n');
}

/**
 * Email the accept link to the invitee through the email channel of the inviting key's
 * environment (SMTP_URL for live keys; SANDBOX_SMTP_URL, or the recording sandbox, for test
 * keys). The link's token is stored nowhere but in this email and the answer, so a send that
 * fails is not retried later: it is logged (without the link), and the inviter still has
 * `accept_url` to pass on.
 */
export async function sendInvitationEmail(ctx: DomainContext, invitation: Invitation, acceptUrl: string): Promise<boolean> {
  const business = await ctx.db.business.findUnique({ where: { id: ctx.tenant.businessId }, select: { name: true } });
  const businessName = business?.name ?? 'Your rental company';
  try {
    await ctx.messaging.email.send({
      id: invitation.id,
      channel: 'email',
      to: invitation.email,
      senderName: businessName,
      subject: `${businessName} invites you to its team`,
      text: invitationEmailText(businessName, invitation, acceptUrl),
    });
    return true;
  } catch (err) {
    const code = err instanceof ChannelFailure ? err.code : 'channel_unavailable';
    log.warn({ invitationId: invitation.id, requestId: ctx.requestId, code, reason: (err as Error).message }, 'invitation email not sent');
    return false;
  }
}
