import { z } from 'zod';
import { found } from '../shared/found.ts';
import { defineOperation } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';

export const getFile = defineOperation({
  name: 'file',
  summary: 'Retrieve authorized file metadata',
  description:
    "A private file's metadata and, once uploaded, a download_url valid for 5 minutes (download_url_expires_at): hand it to whoever should see the file, and ask again for a new one. Files of another business or environment are 404.",
  access: { permission: 'files:read' },
  args: z.object({ id: id('The file (file_...).') }),
  errors: [],
  example: { id: 'file_01jd3m4k5n6p7q8r9s0t1v2w3x' },
  run: (ctx, args, { query }) => found(ctx.db.file.findUnique({ ...query, where: { id: args.id } }), 'file', args.id),
});
