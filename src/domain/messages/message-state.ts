import type { Message } from '../../generated/prisma/client.ts';
import type { MessageDeliveryState } from '../../generated/prisma/enums.ts';
import type { Lifecycle } from '../shared/lifecycle.ts';
import { present } from '../shared/presenter.ts';
import { defineMachine } from '../shared/state-machine.ts';
import { MESSAGE_FIELDS } from './message.fields.ts';
import { withoutSigningLinks } from '../agreements/agreement-links.ts';

/**
 * A message's delivery: an email or SMS is born queued and ends sent or failed; an in_app
 * message is born sent (storing it is its delivery).
 */
export const messageMachine = defineMachine({
  object: 'message',
  states: ['queued', 'sent', 'failed'] as const satisfies readonly MessageDeliveryState[],
  initial: ['queued', 'sent'],
  terminal: ['sent', 'failed'],
  actions: {
    deliver: { from: ['queued'], to: 'sent', event: 'message.sent', verb: 'deliver' },
    fail: { from: ['queued'], to: 'failed', event: 'message.failed', verb: 'fail' },
  },
});

export type MessageAction = keyof typeof messageMachine.actions;

/** A message as its events show it: a signing link in it is a credential, shown as [withheld]. */
export function presentMessage(row: Message) {
  return present('message', MESSAGE_FIELDS, { ...row, body: withoutSigningLinks(row.body) });
}

export const messageLifecycle: Lifecycle<Message, Message, MessageAction> = {
  machine: messageMachine,
  records: (db) => db.message,
  facts: (row) => row,
  present: presentMessage,
  bookingId: (row) => row.bookingId,
};
