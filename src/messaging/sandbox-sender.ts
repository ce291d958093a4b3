import type { ChannelSender, OutgoingMessage } from '../domain/messages/message-channels.ts';

/**
 * The sandbox's channel: nothing leaves the machine; what would have been sent is kept (the
 * latest 1,000), so a test or a developer can see exactly what the customer would receive.
 */
export interface RecordingSender extends ChannelSender {
  readonly sent: readonly OutgoingMessage[];
}

export function recordingSender(limit = 1_000): RecordingSender {
  const sent: OutgoingMessage[] = [];
  return {
    name: 'sandbox',
    sent,
    async send(message) {
      sent.push(message);
      if (sent.length > limit) sent.shift();
      return { providerMessageId: `sandbox_${message.id}` };
    },
  };
}
