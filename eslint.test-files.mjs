// Lint rules of test files, part of eslint.config.mjs; also loaded alone by
// test/unit/foundation/test-lint.test.ts, which checks that they catch what they are there for.

/** `it.only`, `describe.skip`, `test.todo`, `it.concurrent.skip`, `it.skip.each`, `xit`, `fdescribe`, ... */
const JEST_BLOCK = '/^(describe|it|test)$/';
const NARROWING = '/^(only|skip|todo|failing)$/';
const FOCUS_OR_SKIP = [
  `MemberExpression[object.name=${JEST_BLOCK}][property.name=${NARROWING}]`,
  `MemberExpression[object.object.name=${JEST_BLOCK}][property.name=${NARROWING}]`,
  'CallExpression[callee.name=/^(xit|xtest|xdescribe|fit|ftest|fdescribe)$/]',
];

/**
 * A focused test skips the others and a skipped or todo test runs nothing: neither passes the
 * lint (the summary reporter fails a run that skipped one, too). Randomness in a test comes from
 * the run's seed (test/support/test-seed.ts; fast-check's runs take it by themselves), so a
 * failure replays; a unique name or nonce comes from node:crypto.
 */
export const testFileRules = {
  files: ['test/**/*.ts', '**/*.test.ts'],
  rules: {
    'no-restricted-syntax': [
      'error',
      ...FOCUS_OR_SKIP.map((selector) => ({ selector, message: 'focused, skipped and todo tests fail the suite: run the test, or delete it' })),
    ],
    'no-restricted-properties': [
      'error',
      { object: 'Math', property: 'random', message: 'draw from the run seed (testSeed(), test/support/test-seed.ts) or node:crypto (randomInt, randomUUID)' },
    ],
  },
};
