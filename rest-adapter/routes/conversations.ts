import type { RestRoute } from '../route.ts';

/** Conversations with customers and the messages in them. */
export const conversationRoutes: RestRoute[] = [
  { method: 'GET', path: '/v1/conversations', field: 'Query.conversations', stage: 'later_scope' },
  { method: 'GET', path: '/v1/conversations/{conversation_id}', field: 'Query.conversation', args: { id: 'path.conversation_id' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/conversations/{conversation_id}/messages', field: 'Mutation.sendConversationMessage', args: { conversationId: 'path.conversation_id', input: 'body' }, status: 201, stage: 'later_scope' },
  { method: 'POST', path: '/v1/bookings/{booking_id}/messages', field: 'Mutation.sendBookingMessage', args: { bookingId: 'path.booking_id', input: 'body' }, status: 201, stage: 'later_scope' },
];
