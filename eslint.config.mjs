// Lint, part of `npm test`. Type-aware rules where a mistake compiles but misbehaves at run time:
// a promise nobody awaits (a lost error, a write racing the answer) and `any` leaking into typed
// code. Formatting is Prettier's (`npm run format:check`), not ESLint's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { testFileRules } from './eslint.test-files.mjs';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'coverage/**',
      'test/**/fixtures/*.fixture.ts',
      'shared/chain/artifacts/**',
      'cache/**',
      // the run's build and reports (test/support/test-build.ts, summary-reporter.js)
      '.build/**',
      'artifacts/**',
      '**/*.js',
      '**/*.cjs',
      '**/*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unsafe-assignment': 'error',
      '@typescript-eslint/no-unsafe-call': 'error',
      '@typescript-eslint/no-unsafe-member-access': 'error',
      '@typescript-eslint/no-unsafe-return': 'error',
      '@typescript-eslint/no-unsafe-argument': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Tests, benches and examples read untyped JSON (supertest's `res.body`, socket frames,
    // `JSON.parse`) by design and assert on it; `any` there is checked by the assertions, not
    // by types. Floating promises stay errors everywhere.
    files: ['test/**/*.ts', 'bench/**/*.ts', 'examples/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  // Focused, skipped and todo tests, and Math.random, in test files (eslint.test-files.mjs).
  testFileRules,
  {
    // dev/ loads solc-js lazily (seconds to initialise, needed by few processes).
    files: ['dev/**/*.ts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
