/**
 * Where files' bytes live (a port): a directory under the data directory by default
 * (src/storage/directory-storage.ts), an S3-compatible bucket in production
 * (src/storage/s3-storage.ts). Keys are the service's own (`<business>/<environment>/<file id>`),
 * never a caller's name.
 */
export interface FileStorage {
  readonly name: string;
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  /** The bytes, or null when nothing is stored under the key. */
  get(key: string): Promise<Buffer | null>;
  /** Harmless when nothing is there. */
  remove(key: string): Promise<void>;
}
