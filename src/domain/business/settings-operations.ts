import { z } from 'zod';
import { originOf, recordEvent } from '../events/event.service.ts';
import { CommonErrors } from '../shared/common.errors.ts';
import { answersAs, defineOperation } from '../shared/operation.ts';
import { businessSettingsSchema, loadSettings, readSettings, settingsColumn, type BusinessSettings } from './business-settings.ts';
import { lockBusiness } from './business-operations.ts';
import { applySettingsUpdate, presentSettings, settingsInput } from './settings-shape.ts';

/** The settings of the caller's environment, as the API shows them. */
export type BusinessSettingsView = BusinessSettings & { livemode: boolean };

const SETTINGS_HELP =
  'Each environment has its own settings: those changed with a test key rule the sandbox, those changed with a live key production, so trying a setting never changes live bookings.';

export const getBusinessSettings = defineOperation({
  name: 'businessSettings',
  summary: 'Retrieve rental settings',
  description: `The rental settings in force (a setting never changed reads as its default): approval mode, the cancellation policy, deposit, mileage, pickup and return rules, and which gates a new booking has. ${SETTINGS_HELP}`,
  access: { permission: 'business:read' },
  args: z.object({}),
  errors: [],
  example: {},
  async run(ctx): Promise<BusinessSettingsView> {
    return { ...(await loadSettings(ctx)).settings, livemode: ctx.tenant.livemode };
  },
});

export const updateBusinessSettings = defineOperation({
  name: 'updateBusinessSettings',
  summary: 'Update rental settings',
  description: `Changes some settings (business.settings_updated); only the settings sent change, the values of a group (return_rules) merge, and null resets a setting or a whole group to its default. Gates are fixed when a booking is made: a changed requirement applies to new bookings; the approval mode, cancellation policy and pickup and return rules apply from the next step of every booking. ${SETTINGS_HELP}`,
  access: { permission: 'business:write' },
  args: z.object({ input: settingsInput }),
  errors: [],
  example: { input: { bookingApprovalMode: 'manual', returnRules: { graceMinutes: 30, lateFeeCentsPerHour: 1500 } } },
  replay: answersAs(getBusinessSettings),
  async run(ctx, { input }): Promise<BusinessSettingsView> {
    const column = settingsColumn(ctx.tenant.livemode);
    const origin = originOf(ctx);
    const settings = await ctx.db.$transaction(async (tx) => {
      const business = await lockBusiness(tx, ctx.tenant.businessId);
      const stored = applySettingsUpdate(business[column], input);
      // Each value was checked on input; the whole is checked again before it is kept.
      const checked = businessSettingsSchema.safeParse(stored);
      if (!checked.success) throw CommonErrors.parameterInvalid(checked.error.issues[0].path.join('.') || 'body', `Invalid settings: ${checked.error.issues[0].message}`);
      await tx.business.update({ where: { id: ctx.tenant.businessId }, data: { [column]: stored } });
      const current = readSettings(stored);
      await recordEvent(tx, origin, { type: 'business.settings_updated', object: presentSettings(current, ctx.tenant.livemode) });
      return current;
    });
    return { ...settings, livemode: ctx.tenant.livemode };
  },
});
