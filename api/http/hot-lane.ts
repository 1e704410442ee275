import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** One route the lane answers: its method and full path as a client sends them, and what it runs. */
export interface LaneRoute {
  method: string;
  path: string;
  chain: readonly RequestHandler[];
}

/**
 * The creates' lane: the routes the service is sized by, answered without Express's routers.
 * Express tests a request against each layer of the app and of the /api router in turn, each test
 * a closure, a path match and an `arguments` list (about a tenth of what a create allocated,
 * docs/PERFORMANCE.md); here a request whose method and URL are exactly a lane route's (no query
 * string, no trailing slash, the path's own case) is found in one map lookup and run through the
 * same handlers the /api router would have run (`chain`: the write budgets, the body parser, then
 * the route's own chain), in the same order, with the same `req.url`, `req.baseUrl`, `req.route`
 * and `req.params` its handlers saw there. Anything else (another spelling of the same path
 * included) goes on to the routers, which answer it as they always did; so the lane changes no
 * answer, only what finding the route costs.
 *
 * `front` is what the app runs in front of every request (the request's span and context, CORS,
 * the cache policy): the lane is mounted first and runs those itself, in the same order and on
 * the request as the app sees it, before its route's chain, so a create walks one app layer
 * instead of one per middleware. The app mounts the same handlers after the lane for every other
 * request.
 *
 * A handler's error, thrown or rejected, goes to the app's error handler, as the router sends it;
 * a chain never falls through (a route's last handler answers), and one that did would be a
 * defect, answered as one (500) rather than run a second time by the router.
 */
export function hotLane(base: string, routes: readonly LaneRoute[], front: readonly RequestHandler[] = []): RequestHandler {
  const lanes = new Map<string, { path: string; handlers: readonly RequestHandler[] }>();
  for (const r of routes) {
    if (!r.path.startsWith(`${base}/`)) throw new Error(`lane route ${r.path} is not under ${base}/`);
    if (r.path.includes(':')) throw new Error(`lane route ${r.path} has parameters: the lane matches literal paths only`);
    const tail = r.path.slice(base.length);
    const method = r.method.toLowerCase();
    // What the /api router sets before a route's handlers run (it strips its mount path from the URL).
    const enter: RequestHandler = (req, _res, next) => {
      req.url = tail;
      req.baseUrl = base;
      req.params = {};
      (req as { route?: unknown }).route = { path: tail, method };
      next();
    };
    lanes.set(`${r.method.toUpperCase()} ${r.path}`, { path: r.path, handlers: [...front, enter, ...r.chain] });
  }
  return (req: Request, res: Response, next: NextFunction) => {
    const lane = lanes.get(`${req.method} ${req.url}`);
    if (lane === undefined) return next();
    const { url, baseUrl } = req;
    // Named before anything runs: a request the budgets or the body parser refuse is logged by its route.
    req.routeTemplate = lane.path;
    let i = 0;
    const leave = (err: unknown) => {
      req.url = url;
      req.baseUrl = baseUrl;
      next(err);
    };
    const step = (err?: unknown): void => {
      if (err !== undefined && err !== null) return leave(err);
      const handler = lane.handlers[i++];
      if (handler === undefined) return leave(new Error(`lane route ${req.method} ${url} fell through its chain`));
      try {
        const ret: unknown = handler(req, res, step);
        if (ret instanceof Promise) ret.then(undefined, (e: unknown) => step(e ?? new Error('Rejected promise')));
      } catch (e) {
        step(e);
      }
    };
    step();
  };
}
