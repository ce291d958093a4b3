import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  // One graphql module for everyone: vite would otherwise load its ESM build for our code
  // and its CommonJS build for dependencies, and graphql refuses to mix the two.
  resolve: { alias: { graphql: require.resolve('graphql') } },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // The one answer hook: every answer a test gets from the service is checked against the
    // OpenAPI document (or, over GraphQL, the error catalogue) before the test sees it.
    setupFiles: ['test/support/answer-hook.ts'],
    testTimeout: 60000,
    hookTimeout: 120000,
    pool: 'forks',
    // Two files at a time even on two cores (vitest's default would be one there): most of a
    // file's time is spent waiting on servers, databases and browsers it started.
    maxWorkers: Number(process.env.TEST_WORKERS ?? 2),
    // The service's JSON logs (src/log.ts) stay quiet in tests but for warnings and errors;
    // servers the tests start as processes inherit it (a test that reads the logs sets its own).
    env: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' },
  },
});
