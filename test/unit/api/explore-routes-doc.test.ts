import type { ExploreAction } from '../../../api/auth';
import { documentedExploreRoutes, EXPLORE_ROUTE_DOCS, gatedExploreRoutes } from '../../support/explore-routes';

/**
 * An Explore route is one contract behind the gate and one row of its action's Routes table
 * (docs/ARCHITECTURE.md, "Add an Explore route"): a route gated but not documented, documented
 * but not gated (or gated with the other action's challenge), or documented twice fails here.
 */
describe.each(Object.entries(EXPLORE_ROUTE_DOCS) as [ExploreAction, string][])('%s routes and %s', (action, _doc) => {
  const documented = documentedExploreRoutes(action);
  const gated = gatedExploreRoutes(action);

  it('the doc lists each route once, and at least one', () => {
    expect(documented.length).toBeGreaterThan(0);
    expect(documented.filter((r, i) => documented.indexOf(r) !== i)).toEqual([]);
  });

  it(`every route behind the gate with the ${action} challenge is a row of the doc's Routes table, and every row is such a route`, () => {
    expect({ gatedButUndocumented: gated.filter((r) => !documented.includes(r)) }).toEqual({ gatedButUndocumented: [] });
    expect({ documentedButNotGated: documented.filter((r) => !gated.includes(r)) }).toEqual({ documentedButNotGated: [] });
  });
});
