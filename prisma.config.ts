import { defineConfig } from 'prisma/config';

// Only `prisma generate` is used from the CLI; migrations run through the WebAssembly
// schema engine (src/db/migrate.ts), so no datasource URL is needed here.
export default defineConfig({
  schema: 'prisma/schema.prisma',
});
