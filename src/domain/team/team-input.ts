import { z } from 'zod';
import { TeamRole } from '../../generated/prisma/enums.ts';
import { isPermission } from '../access/permissions.ts';

/** The declared inputs the team's operations share. */
export const teamRole = z.enum(Object.values(TeamRole) as [TeamRole, ...TeamRole[]]).meta({ id: 'TeamRole' });

export const extraPermissions = z
  .array(z.string().refine(isPermission, 'expected a permission such as bookings:write (<group>:read or <group>:write)'))
  .max(46)
  .meta({ description: "Permissions granted beyond the role's (`<group>:read`, `<group>:write`)." });

export const memberEmail = z.string().trim().toLowerCase().email().max(320);
