import { CommonErrors } from './common.errors.ts';

/**
 * The row a scoped read found, or 404 `resource_missing`: through the tenant scope another
 * business's or environment's id is simply not found, so it answers exactly like an unknown id.
 */
export function found<T>(row: Promise<T | null>, resource: string, id: string, param?: string): Promise<T> {
  return row.then((value) => {
    if (value === null || value === undefined) throw CommonErrors.resourceMissing(resource, id, param);
    return value;
  });
}
