import type { EnumRef } from '@pothos/core';
import type { FieldSpec, PublicFields } from '../domain/shared/presenter.ts';

/**
 * Expose an aggregate's declared public fields on its Pothos type, so the GraphQL type, the
 * REST answer (derived from it) and event payloads (src/domain/shared/presenter.ts) agree.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function exposePublicFields(t: any, fields: PublicFields, enums: Record<string, EnumRef<any, any>>) {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(fields)) out[name] = exposeOne(t, name, spec, enums);
  return out;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function exposeOne(t: any, name: string, spec: FieldSpec, enums: Record<string, EnumRef<any, any>>) {
  const options = { nullable: spec.nullable ?? false, description: spec.description };
  const kind = spec.kind;
  if (typeof kind === 'object') {
    const ref = enums[kind.enum];
    if (!ref) throw new Error(`enum ${kind.enum} is not registered`);
    return t.expose(name, { ...options, type: ref });
  }
  switch (kind) {
    case 'id':
      return t.exposeID(name, options);
    case 'string':
      return t.exposeString(name, options);
    case 'int':
      return t.exposeInt(name, options);
    case 'boolean':
      return t.exposeBoolean(name, options);
    case 'datetime':
      return t.expose(name, { ...options, type: 'DateTime' });
    case 'json':
      return t.expose(name, { ...options, type: 'JSON' });
    case 'strings':
      return t.exposeStringList(name, options);
  }
}
