import { z } from 'zod';
import type { Branding } from '../../generated/prisma/client.ts';
import { originOf, recordEvent } from '../events/event.service.ts';
import { claimUploadedFiles } from '../files/file-usage.ts';
import { FileErrors } from '../files/file.errors.ts';
import type { Db, DomainContext } from '../shared/context.ts';
import { newId } from '../shared/ids.ts';
import { defineOperation, type PrismaQuery } from '../shared/operation.ts';
import { id } from '../shared/validation.ts';
import { presentBranding } from './website.fields.ts';

function brandingOf(db: Db, ctx: DomainContext, query: PrismaQuery = {}): Promise<Branding> {
  const key = { businessId: ctx.tenant.businessId, livemode: ctx.tenant.livemode };
  return db.branding.upsert({ ...query, where: { businessId_livemode: key }, create: { id: newId('branding'), ...key }, update: {} }) as Promise<Branding>;
}

/** #rgb or #rrggbb, kept as #rrggbb in lower case. */
const color = (description: string) =>
  z
    .string()
    .regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'expected a hex color such as #1a73e8 or #fff')
    .transform((hex) => (hex.length === 4 ? `#${[...hex.slice(1)].map((c) => c + c).join('')}` : hex).toLowerCase())
    .nullish()
    .meta({ description: `${description} Hex (#1a73e8 or #fff). Null clears it.` });

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/webp']);

export const getBranding = defineOperation({
  name: 'branding',
  summary: 'Retrieve branding',
  description: "The website's look: its colors, logo (an uploaded image) and font. Each environment has its own.",
  access: { permission: 'website:read' },
  args: z.object({}),
  errors: [],
  example: {},
  run: (ctx, _args, { query }) => brandingOf(ctx.db, ctx, query),
});

export const updateBranding = defineOperation({
  name: 'updateBranding',
  summary: 'Update branding',
  description:
    'Changes the colors, the logo and the font (branding.updated). Only the fields sent change; null clears one. The logo must be an uploaded JPEG, PNG or WebP file of this business and environment (422 file_not_usable otherwise).',
  access: { permission: 'website:write' },
  args: z.object({
    input: z
      .object({
        primaryColor: color('The main color.'),
        secondaryColor: color('The second color.'),
        accentColor: color('Buttons and links.'),
        logoFileId: id('An uploaded image (file_...).').nullish().meta({ description: 'An uploaded JPEG, PNG or WebP (file_...). Null removes the logo.' }),
        font: z
          .string()
          .trim()
          .regex(/^[A-Za-z0-9][A-Za-z0-9 -]{0,59}$/, 'expected a font family name (letters, digits, spaces, hyphens)')
          .nullish()
          .meta({ description: 'A font family name (Inter, Open Sans). Null clears it.' }),
      })
      .meta({ id: 'BrandingInput' }),
  }),
  errors: [FileErrors.notUsable],
  example: { input: { primaryColor: '#1a73e8', accentColor: '#ff6d00', font: 'Inter' } },
  async run(ctx, { input }, { query }) {
    const origin = originOf(ctx);
    const saved = await ctx.db.$transaction(async (tx) => {
      const current = await brandingOf(tx, ctx);
      if (input.logoFileId) {
        await claimUploadedFiles(tx, [input.logoFileId], () => 'logo_file_id');
        const file = await tx.file.findUniqueOrThrow({ where: { id: input.logoFileId }, select: { contentType: true } });
        if (!IMAGE_TYPES.has(file.contentType)) throw FileErrors.notUsable('logo_file_id', input.logoFileId, `it is ${file.contentType}, not a JPEG, PNG or WebP image`);
      }
      const updated = await tx.branding.update({
        where: { id: current.id },
        data: { primaryColor: input.primaryColor, secondaryColor: input.secondaryColor, accentColor: input.accentColor, logoFileId: input.logoFileId, font: input.font },
      });
      await recordEvent(tx, origin, { type: 'branding.updated', object: presentBranding(updated) });
      return updated;
    });
    return ctx.db.branding.findUniqueOrThrow({ ...query, where: { id: saved.id } });
  },
});
