import { defineMachine } from '../shared/state-machine.ts';
import { FileErrors } from './file.errors.ts';

/**
 * A private file (the contract's "Trip"): pending_upload (an upload URL was issued) →
 * uploaded; an upload never made expires; deleted on request, unless it is evidence of an
 * open dispute (409 file_in_use).
 */
export type FileState = 'pending_upload' | 'uploaded' | 'expired' | 'deleted';

export interface FileFacts {
  state: FileState;
  id: string;
  /** Open disputes that cite the file as evidence. */
  openDisputeCitations: number;
}

export const fileMachine = defineMachine({
  object: 'file',
  states: ['pending_upload', 'uploaded', 'expired', 'deleted'] as const satisfies readonly FileState[],
  initial: ['pending_upload'],
  terminal: ['expired', 'deleted'],
  guards: {
    not_in_use: (f: FileFacts) => (f.openDisputeCitations > 0 ? `it is evidence of ${f.openDisputeCitations} open dispute(s)` : null),
  },
  actions: {
    upload: { from: ['pending_upload'], to: 'uploaded' },
    expire: { from: ['pending_upload'], to: 'expired' },
    delete: { from: ['pending_upload', 'uploaded'], to: 'deleted', guards: ['not_in_use'], refuse: (_unmet, f) => FileErrors.inUse(f.id) },
  },
});

export type FileAction = keyof typeof fileMachine.actions;
