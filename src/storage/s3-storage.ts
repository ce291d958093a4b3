import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import type { FileStorage } from '../domain/files/file-storage.ts';

export interface S3StorageSettings {
  /** FILES_S3_BUCKET: the bucket (it must exist; the service never creates or lists buckets). */
  bucket: string;
  /** FILES_S3_ENDPOINT: an S3-compatible service's address (MinIO, R2, Ceph...); unset, AWS S3 itself. */
  endpoint: string | undefined;
  /** FILES_S3_REGION: the bucket's region (AWS_REGION, or us-east-1, when unset). */
  region: string;
  /** FILES_S3_FORCE_PATH_STYLE: address the bucket in the path (`host/bucket/key`), as most S3-compatible services want. */
  forcePathStyle: boolean;
  /** FILES_S3_PREFIX: a folder of the bucket to keep the files in (empty: the bucket's root). */
  prefix: string;
}

/**
 * Files in an S3-compatible bucket, through the AWS SDK: credentials come from the SDK's
 * standard chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, a shared profile, or the
 * instance's or task's role), never from the service's own settings. Objects are private
 * (no ACL is ever set): the service's signed links are the only way to their bytes.
 */
export function s3Storage(settings: S3StorageSettings, client?: S3Client): FileStorage {
  const s3 =
    client ??
    new S3Client({
      region: settings.region,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      forcePathStyle: settings.forcePathStyle,
      // Checksums only where S3 requires them: several S3-compatible services refuse the
      // SDK's newer default ones. The storage key carries the bytes' SHA-256 anyway.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
    });
  const objectKey = (key: string) => `${settings.prefix}${key}`;
  return {
    name: 's3',
    async put(key, bytes, contentType) {
      await s3.send(new PutObjectCommand({ Bucket: settings.bucket, Key: objectKey(key), Body: bytes, ContentType: contentType, ContentLength: bytes.length }));
    },
    async get(key) {
      try {
        const object = await s3.send(new GetObjectCommand({ Bucket: settings.bucket, Key: objectKey(key) }));
        if (!object.Body) return null;
        return Buffer.from(await object.Body.transformToByteArray());
      } catch (err) {
        if (err instanceof S3ServiceException && (err.name === 'NoSuchKey' || err.$metadata.httpStatusCode === 404)) return null;
        throw err;
      }
    },
    async remove(key) {
      // S3 answers a delete of a missing key as done.
      await s3.send(new DeleteObjectCommand({ Bucket: settings.bucket, Key: objectKey(key) }));
    },
  };
}
