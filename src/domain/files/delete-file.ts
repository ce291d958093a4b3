import { z } from 'zod';
import { originOf } from '../events/event.service.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import { found } from '../shared/found.ts';
import { runAction } from '../shared/lifecycle.ts';
import { defineOperation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import { storageKey } from './file-links.ts';
import { FileErrors } from './file.errors.ts';
import { fileLifecycle } from './file-state.ts';
import { withUsers } from './file-usage.ts';

export const deleteFile = defineOperation({
  name: 'deleteFile',
  summary: 'Delete an eligible file',
  description:
    "Deletes a file's bytes; its record stays, deleted, so evidence that cited it still says so. Refused with 409 file_in_use, naming the users, while the file is still used: the document of an agreement pending signature or signed, a document of an identity verification until its booking is completed, canceled or refunded, or of an insurance submission, or evidence of an open dispute or of a charge not yet collected or waived. Deleting it again is 409 invalid_state_transition.",
  access: { permission: 'files:write' },
  args: z.object({ id: id('The file (file_...).') }),
  errors: [CommonErrors.invalidStateTransition, FileErrors.inUse],
  example: { id: 'file_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  async run(ctx, args) {
    const file = await found(ctx.db.file.findUnique({ where: { id: args.id } }), 'file', args.id);
    // Checked and marked in one transaction; a citation made meanwhile (evidence, documents)
    // touches the file's row, so one of the two finds the row changed and is refused.
    const deleted = await ctx.db.$transaction(async (tx) => {
      const record = await withUsers(tx, file);
      return runAction(tx, originOf(ctx), fileLifecycle, record, 'delete', { deletedAt: ctx.now() });
    });
    await ctx.files.storage.remove(storageKey(deleted));
    return deleted;
  },
});
