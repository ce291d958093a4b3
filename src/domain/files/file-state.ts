import type { File } from '../../generated/prisma/client.ts';
import type { Lifecycle } from '../shared/lifecycle.ts';
import { defineMachine } from '../shared/state-machine.ts';
import { FileErrors } from './file.errors.ts';
import { presentFile } from './file.fields.ts';

/**
 * A private file (the contract's "Trip"): pending_upload (an upload URL was issued) →
 * uploaded; an upload never made expires; deleted on request, unless something still uses it
 * (an agreement, an identity verification, an insurance submission, open evidence: 409
 * file_in_use naming them).
 */
export type FileState = 'pending_upload' | 'uploaded' | 'expired' | 'deleted';

/** Something that uses a file: its id, and how a developer finds it ("agreement agr_... of booking bk_..."). */
export interface FileUse {
  id: string;
  words: string;
}

export interface FileFacts {
  state: FileState;
  id: string;
  /** What still uses the file (src/domain/files/file-usage.ts). */
  usedBy: readonly FileUse[];
}

export const fileMachine = defineMachine({
  object: 'file',
  states: ['pending_upload', 'uploaded', 'expired', 'deleted'] as const satisfies readonly FileState[],
  initial: ['pending_upload'],
  terminal: ['expired', 'deleted'],
  guards: {
    not_in_use: (f: FileFacts) => (f.usedBy.length > 0 ? `it is used by ${f.usedBy.map((u) => u.words).join(', ')}` : null),
  },
  actions: {
    upload: { from: ['pending_upload'], to: 'uploaded' },
    expire: { from: ['pending_upload'], to: 'expired' },
    delete: { from: ['pending_upload', 'uploaded'], to: 'deleted', guards: ['not_in_use'], refuse: (_unmet, f) => FileErrors.inUse(f.id, f.usedBy) },
  },
});

export type FileAction = keyof typeof fileMachine.actions;

/** A file row with what uses it (the delete guard reads it). */
export type FileRecord = File & { usedBy: readonly FileUse[] };

/** Files emit no events: they are private to the business, and their answers say everything. */
export const fileLifecycle: Lifecycle<FileRecord, FileFacts, FileAction> = {
  machine: fileMachine,
  records: (db) => db.file,
  facts: (file) => file,
  present: presentFile,
  bookingId: () => null,
};
