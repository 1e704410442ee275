/**
 * Unit tests alone (`npm run test:unit`): no template database (the global setup only chooses
 * and prints the seed), and the test helpers pointed at closed ports, so a unit test that reaches
 * for Postgres or Redis fails here instead of passing quietly on a machine where they happen to run.
 */
const base = require('./jest.config');

module.exports = {
  ...base,
  roots: ['<rootDir>/test/unit'],
  globalSetup: '<rootDir>/test/support/seed-setup.ts',
  globalTeardown: undefined,
  setupFiles: [...base.setupFiles, '<rootDir>/test/support/unit-setup.js'],
};
