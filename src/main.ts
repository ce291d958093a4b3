import type { AddressInfo } from 'node:net';
import { loadConfig } from './config.ts';
import { DatabaseLockedError, openDatabase } from './db/database.ts';
import { seedDemoBusiness } from './seed.ts';
import { buildApp } from './server.ts';

/** `npm start`: open (and migrate) the database, seed a demo business if empty, serve. */
async function main() {
  const config = loadConfig();
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const seeded = await seedDemoBusiness(db.prisma);
  const app = await buildApp({ db, config });
  const server = await app.listen(config.port, config.host);
  const { port } = server.address() as AddressInfo;
  const base = `http://${config.host}:${port}`;
  console.log(`Rental API listening on ${base} (${db.kind === 'pglite' ? `embedded database in ${config.dataDir}` : 'PostgreSQL'})`);
  console.log(`  REST:    ${base}/v1   OpenAPI: ${base}/v1/openapi.json`);
  console.log(`  GraphQL: ${base}/graphql`);
  if (seeded) {
    console.log('\nSeeded the demo business "Demo Rentals". Its keys (shown once; keep them):');
    console.log(JSON.stringify(seeded, null, 2));
    console.log(`\nTry it:\n  curl -s ${base}/v1/vehicles -H "Authorization: Bearer ${seeded.test_secret_key}"\n`);
  } else {
    console.log('\nThe database already holds a business; list its keys with: npm run admin -- key list --business <id>');
  }
  const stop = async () => {
    await app.close();
    await db.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  if (err instanceof DatabaseLockedError) {
    console.error(err.message);
    process.exit(1);
  }
  console.error(err);
  process.exit(1);
});
