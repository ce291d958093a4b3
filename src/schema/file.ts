import { builder, type GraphQLContext } from '../builder.ts';
import { addChargeEvidence, addDisputeEvidence } from '../domain/files/add-evidence.ts';
import { createFileUpload, type FileUpload } from '../domain/files/create-file-upload.ts';
import { deleteFile } from '../domain/files/delete-file.ts';
import { downloadLink } from '../domain/files/file-links.ts';
import { EVIDENCE_FIELDS, FILE_FIELDS } from '../domain/files/file.fields.ts';
import { getFile } from '../domain/files/get-file.ts';
import type { File } from '../generated/prisma/client.ts';
import { enums } from './enums.ts';
import { exposePublicFields } from './fields.ts';
import { operationField } from './operation-field.ts';

/** One download link per file and answer, so download_url and its expiry always agree. */
const downloads = new WeakMap<File, ReturnType<typeof downloadLink>>();
function download(file: File, ctx: GraphQLContext) {
  if (!downloads.has(file)) downloads.set(file, downloadLink(ctx.domain.files, file, ctx.domain.now()));
  return downloads.get(file) ?? null;
}

builder.prismaObject('File', {
  description: 'A private file (photos, documents, evidence): its metadata, and a short-lived link to its bytes.',
  fields: (t) => ({
    ...(exposePublicFields(t, FILE_FIELDS, enums) as {}),
    downloadUrl: t.string({
      nullable: true,
      description: 'A link to the bytes, valid 5 minutes, for anyone who holds it (null until uploaded, and once deleted). Ask again for a new one.',
      resolve: (file, _args, ctx) => download(file, ctx)?.url ?? null,
    }),
    downloadUrlExpiresAt: t.field({ type: 'DateTime', nullable: true, resolve: (file, _args, ctx) => download(file, ctx)?.expiresAt ?? null }),
  }),
});

builder.prismaObject('Evidence', {
  description: 'A file cited as evidence of a charge or a dispute.',
  fields: (t) => ({
    ...(exposePublicFields(t, EVIDENCE_FIELDS, enums) as {}),
    file: t.relation('file'),
  }),
});

const FileUploadRef = builder.objectRef<FileUpload>('FileUpload').implement({
  description: "Where to upload a file's bytes (PUT, no API key), until when.",
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The file (file_...).' }),
    livemode: t.exposeBoolean('livemode'),
    uploadUrl: t.exposeString('uploadUrl', { description: 'PUT the bytes here, as the body, before expires_at.' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    file: t.prismaField({ type: 'File', resolve: (query, u, _args, ctx) => ctx.domain.db.file.findUniqueOrThrow({ ...query, where: { id: u.id } }) }),
  }),
});

builder.prismaObjectField('Charge', 'evidence', (t) => t.relation('evidence', { description: 'Files cited as evidence, oldest first.', query: { orderBy: { id: 'asc' } } }));
builder.prismaObjectField('Dispute', 'evidence', (t) => t.relation('evidence', { description: 'Files cited as evidence, oldest first.', query: { orderBy: { id: 'asc' } } }));

const file = operationField(getFile);
const upload = operationField(createFileUpload);
const remove = operationField(deleteFile);
const chargeEvidence = operationField(addChargeEvidence);
const disputeEvidence = operationField(addDisputeEvidence);

builder.queryFields((t) => ({
  file: file.prisma(t, 'File'),
}));

builder.mutationFields((t) => ({
  createFileUpload: upload.plain(t, FileUploadRef),
  deleteFile: remove.prisma(t, 'File'),
  addChargeEvidence: chargeEvidence.prisma(t, 'Charge'),
  addDisputeEvidence: disputeEvidence.prisma(t, 'Dispute'),
}));
