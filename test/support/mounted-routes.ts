import type { Express } from 'express';

/** A route the app serves: its method (`all` for every method) and its Express path template. */
export interface MountedRoute {
  method: string;
  path: string;
}

interface RouterLayer {
  route?: { path: string; methods: Record<string, boolean> };
  handle: { stack?: RouterLayer[] };
  rawPath?: unknown;
  slash?: boolean;
}

/**
 * Every route mounted on the app, read from Express's own router stacks (nested routers
 * included), so a route added tomorrow is fuzzed without anyone remembering to list it.
 */
export function mountedRoutes(app: Express): MountedRoute[] {
  const out: MountedRoute[] = [];
  const walk = (stack: RouterLayer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const m of Object.keys(layer.route.methods)) out.push({ method: m === '_all' ? 'all' : m, path: prefix + layer.route.path });
      } else if (layer.handle.stack) {
        walk(layer.handle.stack, layer.slash ? prefix : prefix + String(layer.rawPath ?? ''));
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
