import type { MessageChannels } from '../domain/messages/message-channels.ts';
import { recordingSender } from './sandbox-sender.ts';
import { smtpSender } from './smtp-sender.ts';
import { unconfiguredSender } from './unconfigured-sender.ts';

export interface MessagingConfig {
  /** SMTP_URL: live email. */
  smtpUrl: string | undefined;
  /** SANDBOX_SMTP_URL: the sandbox's email (a mail catcher); unset, sandbox emails are recorded, not sent. */
  sandboxSmtpUrl: string | undefined;
  /** MESSAGES_FROM: the sender address of every email. */
  from: string;
}

/**
 * The channels of each environment. Live: email over SMTP_URL; SMS needs a provider adapter
 * on the same port (none ships yet), so live SMS fails with channel_not_configured. Sandbox:
 * SMS always recorded, email over SANDBOX_SMTP_URL when set (a local mail catcher), else
 * recorded.
 */
export function configuredChannels(config: MessagingConfig): { test: MessageChannels; live: MessageChannels } {
  return {
    test: {
      email: config.sandboxSmtpUrl ? smtpSender({ url: config.sandboxSmtpUrl, from: config.from }) : recordingSender(),
      sms: recordingSender(),
    },
    live: {
      email: config.smtpUrl ? smtpSender({ url: config.smtpUrl, from: config.from }) : unconfiguredSender('email', 'SMTP_URL'),
      sms: unconfiguredSender('sms', 'an SMS provider'),
    },
  };
}
