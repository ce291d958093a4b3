import { ChannelFailure, type ChannelSender } from '../domain/messages/message-channels.ts';

/**
 * Email over SMTP (nodemailer). `url` is an smtp:// or smtps:// URL, credentials included
 * where the server wants them. The message's id becomes the Message-ID, so a receiver can
 * tell a resend from a new message. A 5xx answer is the server's refusal (the message fails);
 * anything else (no connection, a timeout, a 4xx) passes and is tried again.
 */
export function smtpSender(options: { url: string; from: string; timeoutMs?: number }): ChannelSender {
  const timeout = options.timeoutMs ?? 10_000;
  const url = new URL(options.url);
  // nodemailer is loaded by the first email sent, not at the service's start (its memory).
  let transport: ReturnType<typeof import('nodemailer').createTransport> | undefined;
  const connect = async () => (transport ??= (await import('nodemailer')).default.createTransport({
    host: url.hostname,
    port: Number(url.port) || (url.protocol === 'smtps:' ? 465 : 587),
    secure: url.protocol === 'smtps:',
    auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
  }));
  const domain = options.from.split('@')[1] ?? 'localhost';
  return {
    name: 'smtp',
    async send(message) {
      try {
        const info = await (await connect()).sendMail({
          from: { name: message.senderName, address: options.from },
          to: message.to,
          subject: message.subject,
          text: message.text,
          messageId: `<${message.id}@${domain}>`,
        });
        return { providerMessageId: info.messageId };
      } catch (err) {
        const code = (err as { responseCode?: number }).responseCode;
        if (code !== undefined && code >= 500) throw new ChannelFailure('recipient_rejected', true, `the mail server refused the message (${code})`);
        throw new ChannelFailure('channel_unavailable', false, `the mail server did not take the message: ${(err as Error).message}`);
      }
    },
  };
}
