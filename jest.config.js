const os = require('node:os');

/**
 * Workers: TEST_WORKERS when set (a number; `--maxWorkers` on the command line still wins). Else
 * one more than the machine's cores (os.availableParallelism) when the machine is not already
 * busy (the one-minute load average below the core count), and one per core when it is. Many
 * files wait on chains, queues, failovers and spawned processes more than they compute: on a quiet
 * 2-core machine two workers kept the cores two thirds busy and a third worker took jest from 720
 * to 614 s with the cores 95 % busy; on a machine other work already fills, a third worker only
 * shares the same cores (docs/TESTING.md, "Suite speed").
 */
function workers() {
  const asked = Number(process.env.TEST_WORKERS);
  if (Number.isInteger(asked) && asked > 0) return asked;
  const cores = os.availableParallelism();
  return os.loadavg()[0] < cores ? cores + 1 : cores;
}

/** Jest runs TypeScript through ts-jest in transpile-only mode; `npm run build:test` does the type checking once. */
module.exports = {
  // jest's Node environment, failing a test on a pg deprecation warning (test/support/jest-environment.js).
  testEnvironment: '<rootDir>/test/support/jest-environment.js',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
    // The OTLP exporter loads node:http with import(), which jest's CommonJS sandbox cannot run
    // (no --experimental-vm-modules): compiled as CommonJS, that import() becomes a require().
    '/node_modules/@opentelemetry/otlp-exporter-base/.+\\.js$': ['ts-jest', { diagnostics: false, tsconfig: { allowJs: true } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!@opentelemetry/otlp-exporter-base/)'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // Every fast-check run without a seed of its own takes the run's (TEST_SEED, printed by the global setup).
  setupFiles: ['reflect-metadata', '<rootDir>/test/support/fast-check-seed.ts'],
  // A second query sent to a busy pg client fails the test, as pg's own warning does (three at once).
  setupFilesAfterEnv: ['<rootDir>/test/support/pg-one-query.ts'],
  // The client imports the wire package by its npm name, and the doc snippets (docs/snippets) the
  // client by its own; in this repository those are wire/src and client/src.
  moduleNameMapper: { '^@options-rfq/wire$': '<rootDir>/wire/src/index.ts', '^@options-rfq/client$': '<rootDir>/client/src/index.ts' },
  maxWorkers: workers(),
  // A budget per test and hook, not a speed assertion: a test that waits on a chain, a queue and
  // a socket one after the other takes several times its idle duration on a busy 2-core machine.
  // Longer waits set their own.
  testTimeout: 60000,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
