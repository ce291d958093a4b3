import { AsyncLocalStorage } from 'node:async_hooks';

/** What the edge knows about the request in flight, for code far from the handler (error masking). */
export interface RequestScope {
  requestId: string;
}

export const requestScope = new AsyncLocalStorage<RequestScope>();

export function currentRequestId(): string {
  return requestScope.getStore()?.requestId ?? 'req_unknown';
}
