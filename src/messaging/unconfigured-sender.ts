import { ChannelFailure, type ChannelSender } from '../domain/messages/message-channels.ts';

/** A live channel nobody configured: its messages fail at once with `channel_not_configured`, never silently. */
export function unconfiguredSender(channel: string, setting: string): ChannelSender {
  return {
    name: 'unconfigured',
    async send() {
      throw new ChannelFailure('channel_not_configured', true, `no ${channel} provider is configured (${setting})`);
    },
  };
}
