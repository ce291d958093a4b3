import type { File } from '../../generated/prisma/client.ts';
import type { Lifecycle } from '../shared/lifecycle.ts';
import { defineMachine } from '../shared/state-machine.ts';
import { FileErrors } from './file.errors.ts';
import { presentFile } from './file.fields.ts';

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

/** A file row with how many open disputes cite it (the delete guard reads it). */
export type FileRecord = File & { openDisputeCitations: number };

/** Files emit no events: they are private to the business, and their answers say everything. */
export const fileLifecycle: Lifecycle<FileRecord, FileFacts, FileAction> = {
  machine: fileMachine,
  records: (db) => db.file,
  facts: (file) => file,
  present: presentFile,
  bookingId: () => null,
};
