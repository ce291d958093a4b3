import { builder } from '../builder.ts';
import { getBusiness, updateBusiness } from '../domain/business/business-operations.ts';
import type { Address } from '../domain/business/business.fields.ts';
import { getBusinessSettings, updateBusinessSettings, type BusinessSettingsView } from '../domain/business/settings-operations.ts';
import { SETTINGS, type SettingLeaf } from '../domain/business/settings-shape.ts';
import { enumType } from './enums.ts';
import { operationField } from './operation-field.ts';

const AddressRef = builder.objectRef<Address>('Address').implement({
  description: 'A postal address.',
  fields: (t) => ({
    line1: t.string({ nullable: true, resolve: (a) => a.line1 ?? null }),
    line2: t.string({ nullable: true, resolve: (a) => a.line2 ?? null }),
    city: t.string({ nullable: true, resolve: (a) => a.city ?? null }),
    state: t.string({ nullable: true, resolve: (a) => a.state ?? null }),
    postalCode: t.string({ nullable: true, resolve: (a) => a.postalCode ?? null }),
    country: t.string({ nullable: true, description: 'ISO 3166-1 alpha-2.', resolve: (a) => a.country ?? null }),
  }),
});

builder.prismaObject('Business', {
  description: 'The rental business the key belongs to.',
  fields: (t) => ({
    id: t.exposeID('id'),
    livemode: t.boolean({ description: "The key's environment (the business is the same in both).", resolve: (_b, _a, ctx) => ctx.domain.tenant.livemode }),
    name: t.exposeString('name'),
    currency: t.exposeString('currency', { description: 'ISO 4217, lower case: every price of the business is in it. Set at creation; it cannot change through the API.' }),
    timezone: t.exposeString('timezone', { description: 'IANA time zone.' }),
    supportEmail: t.exposeString('supportEmail', { nullable: true }),
    supportPhone: t.exposeString('supportPhone', { nullable: true }),
    address: t.field({ type: AddressRef, nullable: true, resolve: (b) => (b.address as Address | null) ?? null }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

type Values = Record<string, unknown>;

/** The GraphQL type of one setting's value. */
function leafType(l: SettingLeaf, typeName: string) {
  if (typeof l.kind === 'object') return enumType(typeName, l.kind.enum);
  return l.kind === 'int' ? 'Int' : l.kind === 'boolean' ? 'Boolean' : 'String';
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const leafField = (t: any, l: SettingLeaf, typeName: string) =>
  t.field({ type: leafType(l, typeName), description: l.description, resolve: (values: Values) => values[l.key] });

const pascal = (key: string) => key.replace(/(^|_)([a-z])/g, (_, _u, c: string) => c.toUpperCase());

/** One object type per group of settings (ReturnRules), derived from the settings' declaration. */
const groupTypes = new Map(
  SETTINGS.filter((s) => s.leaves).map((s) => [
    s.key,
    builder.objectRef<Values>(s.typeName).implement({
      description: `The ${s.key} setting.`,
      fields: (t) => Object.fromEntries(s.leaves!.map((l) => [l.field, leafField(t, l, `${s.typeName}${pascal(l.key)}`)])),
    }),
  ]),
);

const SettingsRef = builder.objectRef<BusinessSettingsView>('BusinessSettings').implement({
  description: "The business's rental settings in the key's environment, defaults filled in.",
  fields: (t) => ({
    livemode: t.exposeBoolean('livemode'),
    ...Object.fromEntries(
      SETTINGS.map((s) => [
        s.field,
        s.leaves
          ? t.field({ type: groupTypes.get(s.key)!, description: s.description, resolve: (v) => (v as unknown as Values)[s.key] as Values })
          : leafField(t, s, s.typeName),
      ]),
    ),
  }),
});

const read = operationField(getBusiness);
const update = operationField(updateBusiness);
const readSettings = operationField(getBusinessSettings);
const updateSettings = operationField(updateBusinessSettings);

builder.queryFields((t) => ({
  business: read.prisma(t, 'Business'),
  businessSettings: readSettings.plain(t, SettingsRef),
}));

builder.mutationFields((t) => ({
  updateBusiness: update.prisma(t, 'Business'),
  updateBusinessSettings: updateSettings.plain(t, SettingsRef),
}));
