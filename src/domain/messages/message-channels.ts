/**
 * The channels that carry a message to a customer, as the domain sees them (a port, like the
 * payment processor's). Each environment has its own: email over SMTP and a recording sandbox
 * for test keys (src/messaging/). in_app messages are delivered by being stored.
 */
export type DeliveredChannel = 'email' | 'sms';

export interface OutgoingMessage {
  /** The message's id: the email's Message-ID and the provider's idempotency key, so a redelivery can be recognised. */
  id: string;
  channel: DeliveredChannel;
  /** The customer's email address or phone number. */
  to: string;
  /** The business's name, shown as the sender. */
  senderName: string;
  subject: string;
  /** Already redacted. */
  text: string;
}

export interface ChannelSender {
  /** `smtp`, `sandbox`, `unconfigured`: kept for logs and tests. */
  readonly name: string;
  send(message: OutgoingMessage): Promise<{ providerMessageId: string }>;
}

/**
 * A channel refused or could not take the message. A permanent failure fails the message
 * (`failure_code`); a passing one leaves it queued for the next attempt.
 */
export class ChannelFailure extends Error {
  override name = 'ChannelFailure';
  constructor(
    readonly code: string,
    readonly permanent: boolean,
    message: string,
  ) {
    super(message);
  }
}

export type MessageChannels = Record<DeliveredChannel, ChannelSender>;
