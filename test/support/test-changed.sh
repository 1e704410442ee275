#!/usr/bin/env sh
# `npm run test:changed`: what a change touches, against origin/main (or main without a remote;
# TEST_CHANGED_SINCE=<ref> picks another base). The files changed since the base, committed or
# not, go through ESLint and Prettier; the project is type-checked and built once
# (`npm run build:test`, incremental); jest runs the test files that import a changed file,
# directly or not (`--changedSince`). The whole `npm test` stays the check before a merge: the
# dependency lint and tests that read the tree as data (docs, house rules) see more than imports.
set -eu
cd "$(dirname "$0")/../.."
base="${TEST_CHANGED_SINCE:-}"
if [ -z "$base" ]; then
  if git rev-parse -q --verify origin/main >/dev/null; then base=origin/main; else base=main; fi
fi
changed=$( (git diff --name-only --diff-filter=d "$(git merge-base "$base" HEAD)"; git ls-files -o --exclude-standard) | sort -u)
echo "== changed since $base: $(printf '%s\n' "$changed" | grep -c . || true) file(s)"
typescript=$(printf '%s\n' "$changed" | grep -E '\.ts$' || true)
formatted=$(printf '%s\n' "$changed" | grep -E '\.(ts|js|cjs|mjs|json)$' || true)
# shellcheck disable=SC2086
if [ -n "$typescript" ]; then npx eslint --no-warn-ignored $typescript; fi
# shellcheck disable=SC2086
if [ -n "$formatted" ]; then npx prettier --check --ignore-unknown $formatted; fi
npm run build:test
exec npx jest --changedSince="$base" --passWithNoTests "$@"
