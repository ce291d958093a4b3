import type { Message } from '../../generated/prisma/client.ts';
import type { EventOrigin } from '../events/event.service.ts';
import type { Db } from '../shared/context.ts';
import { runAction } from '../shared/lifecycle.ts';
import { ChannelFailure, type DeliveredChannel, type MessageChannels } from './message-channels.ts';
import { messageLifecycle } from './message-state.ts';

/** A delivery in progress is reserved this long; a process that dies mid-send leaves it to another after that. */
export const DELIVERY_CLAIM_MS = 60_000;
/** Passing failures are tried again after these waits; then the message fails. */
const RETRY_AFTER_MS = [10_000, 60_000, 300_000, 1_800_000];
export const MAX_DELIVERY_ATTEMPTS = RETRY_AFTER_MS.length + 1;

/** What an email says above the text: the business and, when there is one, the booking. */
function subjectOf(message: Message, businessName: string) {
  return message.bookingId ? `${businessName}: about your booking ${message.bookingId}` : `A message from ${businessName}`;
}

/**
 * Hand one queued email or SMS to its channel, once however many processes try: the attempt
 * is claimed first (a compare-and-set on the claim), then sent, then its outcome recorded
 * through the message's table (`message.sent`, or `message.failed` with its code). A passing
 * failure keeps it queued with the claim pushed to the next attempt's time, so the periodic
 * sweep tries again. The message's id travels with it (the email's Message-ID), so a send
 * repeated after a crash can be recognised by the receiver.
 */
export async function deliverMessage(db: Db, origin: EventOrigin, channels: MessageChannels, messageId: string, now: Date, senderName: string): Promise<Message> {
  const claimed = await db.message.updateMany({
    where: { id: messageId, state: 'queued', OR: [{ deliveryClaimedUntil: null }, { deliveryClaimedUntil: { lt: now } }] },
    data: { deliveryClaimedUntil: new Date(now.getTime() + DELIVERY_CLAIM_MS), deliveryAttempts: { increment: 1 } },
  });
  const message = await db.message.findUniqueOrThrow({ where: { id: messageId } });
  if (claimed.count !== 1 || message.state !== 'queued' || message.channel === 'in_app') return message;
  const channel = message.channel as DeliveredChannel;
  try {
    if (!message.recipient) throw new ChannelFailure('recipient_missing', true, `the customer has no ${channel === 'email' ? 'email address' : 'phone number'}`);
    await channels[channel].send({ id: message.id, channel, to: message.recipient ?? '', senderName, subject: subjectOf(message, senderName), text: message.body });
    return await db.$transaction((tx) => runAction(tx, origin, messageLifecycle, message, 'deliver', { sentAt: now, failureCode: null, deliveryClaimedUntil: null }));
  } catch (err) {
    const failure = err instanceof ChannelFailure ? err : new ChannelFailure('channel_unavailable', false, (err as Error).message);
    if (failure.permanent || message.deliveryAttempts >= MAX_DELIVERY_ATTEMPTS) {
      return db.$transaction((tx) => runAction(tx, origin, messageLifecycle, message, 'fail', { failureCode: failure.code, deliveryClaimedUntil: null }));
    }
    const retryAt = new Date(now.getTime() + RETRY_AFTER_MS[message.deliveryAttempts - 1]);
    await db.message.updateMany({ where: { id: message.id, state: 'queued' }, data: { failureCode: failure.code, deliveryClaimedUntil: retryAt } });
    return db.message.findUniqueOrThrow({ where: { id: message.id } });
  }
}

/** Messages a sweep should try: queued, and not reserved by an attempt under way or a retry's wait. */
export const dueMessages = (now: Date, createdBefore: Date) => ({
  state: 'queued' as const,
  OR: [{ deliveryClaimedUntil: null, createdAt: { lt: createdBefore } }, { deliveryClaimedUntil: { lt: now } }],
});

/** Deliver the tenant's due messages (the periodic sweep: a process died mid-send, or a channel was down). */
export async function deliverDueMessages(db: Db, origin: EventOrigin, channels: MessageChannels, now: Date, senderName: string) {
  const due = await db.message.findMany({ where: dueMessages(now, new Date(now.getTime() - 10_000)), select: { id: true }, orderBy: { id: 'asc' }, take: 50 });
  for (const { id } of due) await deliverMessage(db, origin, channels, id, now, senderName);
  return due.length;
}
