import { errorCatalogue } from '../shared/errors.ts';

/** Refusals of files and evidence (the contract's "Trip"). */
export const FileErrors = errorCatalogue('file', {
  inUse: {
    type: 'conflict',
    code: 'file_in_use',
    description: 'The file is evidence of an open dispute and cannot be deleted until the dispute is settled.',
    build: (fileId: string) => ({ message: `File ${fileId} is evidence of an open dispute; it cannot be deleted until the dispute is settled.` }),
  },
});
