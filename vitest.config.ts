import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration suites start servers on 127.0.0.1 port 0; forks isolate them.
    pool: 'forks',
    reporters: ['default', ['json', { outputFile: 'reports/vitest.json' }]],
    typecheck: { enabled: false },
    // The local workflow runs the deployed bundles, the CLI tests the built program: both
    // built once, before any test file.
    globalSetup: ['test/support/lambda-assets-setup.ts', 'test/support/cli-build-setup.ts'],
  },
});
