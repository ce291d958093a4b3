import { visit, type DocumentNode } from 'graphql';
import { CommonErrors } from '../domain/shared/common.errors.ts';
import type { DomainError } from '../domain/shared/errors.ts';
import { EdgeErrors } from './edge.errors.ts';

/** How deep input may nest objects and arrays (metadata is flat; the deepest input type is 3). */
export const MAX_NESTING = 32;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a text cannot be stored (PostgreSQL refuses NUL; an unpaired surrogate is not text), or null. */
export function unsafeText(text: string): string | null {
  if (text.includes('\u0000')) return 'contains a NUL character';
  if (LONE_SURROGATE.test(text)) return 'contains an unpaired UTF-16 surrogate';
  return null;
}

/**
 * The one check every input passes before it reaches an operation (REST path, query and body;
 * GraphQL variables and literals): no NUL or unpaired surrogate in any string or key, no
 * `__proto__` key (JavaScript would drop it silently), at most MAX_NESTING levels. Walks
 * without recursion, so no depth can overflow the stack. Returns the error, or null.
 */
export function inputProblem(value: unknown, at: readonly (string | number)[] = []): DomainError | null {
  const stack: { value: unknown; path: readonly (string | number)[]; depth: number }[] = [{ value, path: at, depth: 0 }];
  const name = (path: readonly (string | number)[]) => path.join('.') || 'body';
  while (stack.length > 0) {
    const { value: v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      const why = unsafeText(v);
      if (why) return CommonErrors.parameterInvalid(name(path), `Invalid ${name(path)}: ${why}.`);
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= MAX_NESTING) return EdgeErrors.nestingTooDeep(MAX_NESTING);
    if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push({ value: item, path: [...path, i], depth: depth + 1 }));
      continue;
    }
    for (const key of Object.keys(v)) {
      const keyPath = [...path, key];
      const why = key === '__proto__' ? 'the key __proto__ is not allowed' : unsafeText(key);
      if (why) return CommonErrors.parameterInvalid(name(keyPath), `Invalid ${name(path)}: ${why}.`);
      stack.push({ value: (v as Record<string, unknown>)[key], path: keyPath, depth: depth + 1 });
    }
  }
  return null;
}

/** The same check over the string and object literals written into a GraphQL document. */
export function documentProblem(document: DocumentNode): DomainError | null {
  let problem: DomainError | null = null;
  const args: string[] = [];
  visit(document, {
    Argument: { enter: (node) => void args.push(node.name.value), leave: () => void args.pop() },
    StringValue(node) {
      const why = unsafeText(node.value);
      if (why && !problem) problem = CommonErrors.parameterInvalid(args.at(-1) ?? 'query', `Invalid ${args.at(-1) ?? 'query'}: ${why}.`);
    },
    ObjectField(node) {
      const why = node.name.value === '__proto__' ? 'the key __proto__ is not allowed' : null;
      if (why && !problem) problem = CommonErrors.parameterInvalid(args.at(-1) ?? 'query', `Invalid ${args.at(-1) ?? 'query'}: ${why}.`);
    },
  });
  return problem;
}

/** A parsed body that must be an object whose every value passes `inputProblem`. */
export function checkedObject(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw EdgeErrors.invalidJson('The request body must be a JSON object.');
  const problem = inputProblem(body);
  if (problem) throw problem;
  return body as Record<string, unknown>;
}

/** A JSON request body: empty is `{}`; otherwise a JSON object that passes the input check (400 invalid_json, or 422 naming the field). */
export function jsonObjectBody(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw EdgeErrors.invalidJson();
  }
  return checkedObject(body);
}
