import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ExploreAction } from '../../api/auth';
import { API_ROUTES } from '../../api/routes/route-table';

/** The doc whose "## Routes" table lists each Explore action's routes, for an integrator. */
export const EXPLORE_ROUTE_DOCS: Record<ExploreAction, string> = {
  'explore-clob': 'docs/EXPLORE.md',
  'explore-loan': 'docs/LOANS.md',
};

/**
 * The routes an Explore action's doc lists in its "## Routes" table, `METHOD /path` as the
 * contracts spell them: the first code span of each row, without the query (`?chain_id=`,
 * `[?below=]`) or body it shows. This table is the one list of an action's routes the tests read
 * (the gate suites run on it; test/unit/api/explore-routes-doc.test.ts holds it to the contracts).
 */
export function documentedExploreRoutes(action: ExploreAction): string[] {
  const doc = readFileSync(path.resolve(__dirname, '../..', EXPLORE_ROUTE_DOCS[action]), 'utf8');
  const section = doc.split(/^## /m).find((s) => s.startsWith('Routes\n')) ?? '';
  return [...section.matchAll(/^\| `((?:GET|POST|PUT|PATCH|DELETE) \/[^`?[\s]*)[^`]*`/gm)].map((m) => m[1]);
}

/** The routes whose contract puts them behind the Explore gate with `action`'s challenge, `METHOD /path`. */
export function gatedExploreRoutes(action: ExploreAction): string[] {
  return API_ROUTES.filter((c) => 'challenge' in c.auth && c.auth.challenge === action).map((c) => `${c.method.toUpperCase()} ${c.path}`);
}
