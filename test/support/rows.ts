import { randomBytes } from 'node:crypto';
import type { Database } from '../../src/db/database.ts';
import type { TenantScope } from '../../src/db/tenant-db.ts';
import * as Enums from '../../src/generated/prisma/enums.ts';
import { getDatamodel } from '../../src/generated/pothos-prisma-types.ts';

/*
 * Rows of any model of schema.prisma, made from the datamodel itself: a test that needs "a
 * row of model M belonging to tenant T" asks for it, and a model added later is covered
 * without new test code.
 */

interface Field {
  name: string;
  type: string;
  kind: string;
  isRequired: boolean;
  isList: boolean;
  isId: boolean;
  hasDefaultValue: boolean;
  isUpdatedAt: boolean;
  relationFromFields?: string[];
}
interface Model {
  fields: Field[];
  primaryKey: { fields: string[] } | null;
}

export const models = getDatamodel().datamodel.models as unknown as Record<string, Model>;
export const delegate = (db: object, model: string) => (db as Record<string, Record<string, (args?: object) => Promise<unknown>>>)[model[0].toLowerCase() + model.slice(1)];
export const unique = () => randomBytes(8).toString('hex');

/** The fields that identify a row of `model`, as a findUnique `where`. */
export function keyOf(model: string, row: Record<string, unknown>): Record<string, unknown> {
  const pk = models[model].primaryKey;
  if (!pk) return { id: row.id };
  return { [pk.fields.join('_')]: Object.fromEntries(pk.fields.map((f) => [f, row[f]])) };
}

/**
 * A minimal row of `model` owned by `owner`, its required parents made first (same owner),
 * created through `via` (default: the unscoped client).
 */
/** Optional relations a CHECK of the migrations makes one of required (evidence belongs to a charge or a dispute). */
const REQUIRED_BY_CHECK: Record<string, string> = { Evidence: 'charge' };

export async function makeRow(db: Database, model: string, owner: TenantScope, clock = { t: Date.now() }, via: object = db.prisma): Promise<Record<string, unknown>> {
  return (await delegate(via, model).create({ data: await rowData(db, model, owner, clock, via) })) as Record<string, unknown>;
}

/** The data of a minimal row of `model` owned by `owner`, its required parents made (through `via`), the row itself not. */
export async function rowData(db: Database, model: string, owner: TenantScope, clock = { t: Date.now() }, via: object = db.prisma): Promise<Record<string, unknown>> {
  const data: Record<string, unknown> = {};
  const fields = models[model].fields;
  const required = (f: (typeof fields)[number]) => f.isRequired || REQUIRED_BY_CHECK[model] === f.name;
  for (const relation of fields.filter((f) => f.kind === 'object' && required(f) && !f.isList && f.relationFromFields?.length)) {
    if (relation.type === 'Business') continue;
    const parent = await makeRow(db, relation.type, owner, clock, via);
    data[relation.relationFromFields![0]] = parent.id;
  }
  for (const f of fields) {
    if (f.kind === 'object' || f.name in data || f.isUpdatedAt) continue;
    if (f.name === 'businessId') data[f.name] = owner.businessId;
    else if (f.name === 'livemode') data[f.name] = owner.livemode;
    else if (!f.isRequired || (f.hasDefaultValue && !f.isId)) continue;
    else if (f.isList) data[f.name] = [];
    else if (f.kind === 'enum') data[f.name] = Object.values((Enums as unknown as Record<string, Record<string, string>>)[f.type])[0];
    else if (f.type === 'String') data[f.name] = `${f.name}_${unique()}`;
    else if (f.type === 'Int') data[f.name] = 0;
    else if (f.type === 'Boolean') data[f.name] = false;
    else if (f.type === 'DateTime') data[f.name] = new Date((clock.t += 3_600_000)); // later fields later (a booking ends after it starts)
    else if (f.type === 'Json') data[f.name] = {};
    else throw new Error(`${model}.${f.name}: no sample value for ${f.type}`);
  }
  return data;
}

