import type { PrismaClient } from '../generated/prisma/client.ts';
import type { TeamRole } from '../generated/prisma/enums.ts';
import { isUniqueViolation } from '../db/database-errors.ts';
import { newId } from '../domain/shared/ids.ts';

/**
 * Add a member to a business directly, without an invitation: how the admin tool makes a
 * business's first owner (everyone after is invited through the API). Null when the email
 * is already a member.
 */
export async function addTeamMember(prisma: PrismaClient, input: { businessId: string; email: string; name?: string; role: TeamRole }) {
  try {
    return await prisma.teamMember.create({
      data: { id: newId('teamMember'), businessId: input.businessId, email: input.email.trim().toLowerCase(), name: input.name ?? null, role: input.role },
    });
  } catch (err) {
    if (isUniqueViolation(err)) return null;
    throw err;
  }
}
