import type { Express } from 'express';

/** A route the app serves: its method (`all` for every method) and its Express path template. */
export interface MountedRoute {
  method: string;
  path: string;
}

interface RouterLayer {
  /** One path, or several for a route registered under a list of paths. */
  route?: { path: string | string[]; methods: Record<string, boolean> };
  /** A nested router has a stack; a mounted Express app (bull-board's) has a router. */
  handle: { stack?: RouterLayer[]; router?: { stack: RouterLayer[] } };
  rawPath?: unknown;
  slash?: boolean;
}

/**
 * Every route mounted on the app, read from Express's own router stacks (nested routers and
 * mounted apps included), so a route added tomorrow is fuzzed without anyone remembering to list it.
 */
export function mountedRoutes(app: Express): MountedRoute[] {
  const out: MountedRoute[] = [];
  const walk = (stack: RouterLayer[], prefix: string) => {
    for (const layer of stack) {
      const nested = layer.handle.stack ?? layer.handle.router?.stack;
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const m of Object.keys(layer.route.methods)) for (const p of paths) out.push({ method: m === '_all' ? 'all' : m, path: prefix + p });
      } else if (nested) {
        walk(nested, layer.slash ? prefix : prefix + String(layer.rawPath ?? ''));
      }
    }
  };
  walk((app as unknown as { router: { stack: RouterLayer[] } }).router.stack, '');
  const seen = new Set<string>();
  return out.filter((r) => {
    const k = `${r.method} ${r.path}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** `GET /api/quote/:id` */
export const routeKey = (r: MountedRoute): string => `${r.method.toUpperCase()} ${r.path}`;
