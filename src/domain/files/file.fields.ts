import type { File } from '../../generated/prisma/client.ts';
import { present, type PublicFields } from '../shared/presenter.ts';

export const FILE_FIELDS: PublicFields = {
  id: { kind: 'id' },
  livemode: { kind: 'boolean' },
  purpose: { kind: { enum: 'FilePurpose' } },
  filename: { kind: 'string' },
  contentType: { kind: 'string', description: 'The media type, as checked from the uploaded bytes.' },
  sizeBytes: { kind: 'int' },
  state: { kind: { enum: 'FileState' } },
  sha256: { kind: 'string', nullable: true, description: "The uploaded bytes' SHA-256, in hex." },
  uploadedAt: { kind: 'datetime', nullable: true },
  createdAt: { kind: 'datetime' },
};

export function presentFile(file: File) {
  return present('file', FILE_FIELDS, file);
}

export const EVIDENCE_FIELDS: PublicFields = {
  fileId: { kind: 'id' },
  description: { kind: 'string', nullable: true },
  createdAt: { kind: 'datetime' },
};
