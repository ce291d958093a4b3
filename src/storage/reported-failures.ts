import type { FileStorage } from '../domain/files/file-storage.ts';
import { FileErrors } from '../domain/files/file.errors.ts';
import { log } from '../log.ts';

/**
 * A store whose every failure is the API's: a bucket that does not answer or refuses
 * (after the SDK's own retries) is 502 `file_storage_unavailable`, never a 500. The cause is
 * logged once, without the request's credentials (the SDK's errors carry none).
 */
export function reportingStorageFailures(storage: FileStorage): FileStorage {
  const wrap =
    <A extends unknown[], R>(what: string, call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await call(...args);
      } catch (err) {
        log.error(`file storage (${storage.name}) ${what} failed: ${err instanceof Error ? `${err.name}: ${err.message.split('\n')[0]}` : String(err)}`);
        throw FileErrors.storageUnavailable();
      }
    };
  return {
    name: storage.name,
    put: wrap('put', storage.put.bind(storage)),
    get: wrap('get', storage.get.bind(storage)),
    remove: wrap('remove', storage.remove.bind(storage)),
  };
}
