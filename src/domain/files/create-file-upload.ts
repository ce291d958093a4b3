import { z } from 'zod';
import { FilePurpose } from '../../generated/prisma/enums.ts';
import { defineOperation } from '../shared/operation.ts';
import { newId } from '../shared/ids.ts';
import { FILE_CONTENT_TYPES, MAX_FILE_BYTES } from './file-type.ts';
import { UPLOAD_LINK_MINUTES } from './file-links.ts';

/** The answer of POST /v1/files/upload-url: where to send the bytes, until when. */
export interface FileUpload {
  id: string;
  livemode: boolean;
  uploadUrl: string;
  expiresAt: Date;
}

const uploadInput = z
  .object({
    purpose: z.enum(Object.values(FilePurpose) as [FilePurpose, ...FilePurpose[]]).meta({ id: 'FilePurpose', description: 'What the file is for.' }),
    filename: z.string().trim().min(1).max(255).meta({ description: 'The name to show (never used as a path).' }),
    // A string, not an enum: media types are not GraphQL names.
    contentType: z
      .string()
      .refine((v) => (FILE_CONTENT_TYPES as readonly string[]).includes(v), `must be one of ${FILE_CONTENT_TYPES.join(', ')}`)
      .meta({ description: `The media type (${FILE_CONTENT_TYPES.join(', ')}); the upload is checked against its bytes.` }),
    sizeBytes: z.number().int().min(1).max(MAX_FILE_BYTES).meta({ description: 'The exact size of the upload, at most 10 MiB.' }),
  })
  .meta({ id: 'CreateFileUploadInput' });

export const createFileUpload = defineOperation({
  name: 'createFileUpload',
  summary: 'Create an authorized upload URL',
  description:
    "Registers a private file and answers a link to upload its bytes: PUT them to upload_url (no API key: the link is the authorization) before expires_at (15 minutes). The bytes must be the declared size and, read from their signature, the declared content_type (image/jpeg, image/png, image/webp, image/heic or application/pdf, at most 10 MiB); anything else is refused and nothing is stored. Uploaded files serve as evidence of charges and disputes.",
  access: { permission: 'files:write' },
  args: z.object({ input: uploadInput }),
  errors: [],
  example: { input: { purpose: 'damage_evidence', filename: 'rear-bumper.jpg', contentType: 'image/jpeg', sizeBytes: 482113 } },
  async run(ctx, args): Promise<FileUpload> {
    const expiresAt = new Date(ctx.now().getTime() + UPLOAD_LINK_MINUTES * 60_000);
    const file = await ctx.db.file.create({
      data: { id: newId('file'), ...ctx.tenant, ...args.input, uploadExpiresAt: expiresAt },
    });
    return { id: file.id, livemode: file.livemode, uploadUrl: ctx.files.link(file.id, 'upload', expiresAt), expiresAt };
  },
  // The file the first run registered, with a link to upload its bytes until the same time.
  async replay(ctx, _args, _extras, effect) {
    const [id] = effect.created.File ?? [];
    const file = id ? await ctx.db.file.findUnique({ where: { id } }) : null;
    if (!file?.uploadExpiresAt) return undefined;
    return { id: file.id, livemode: file.livemode, uploadUrl: ctx.files.link(file.id, 'upload', file.uploadExpiresAt), expiresAt: file.uploadExpiresAt };
  },
});
