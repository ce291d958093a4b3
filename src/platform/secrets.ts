import { randomBytes } from 'node:crypto';
import type { PrismaClient } from '../generated/prisma/client.ts';

/**
 * A secret of this installation, made by whichever process asks first and then shared by all
 * of them through the database (every API process must verify the links any other signed).
 */
export async function platformSecret(prisma: PrismaClient, name: string): Promise<string> {
  await prisma.platformSecret.createMany({ data: [{ name, value: randomBytes(32).toString('base64url') }], skipDuplicates: true });
  return (await prisma.platformSecret.findUniqueOrThrow({ where: { name } })).value;
}
