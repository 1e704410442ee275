import type http from 'node:http';
import type { Express } from 'express';
import supertest from 'supertest';
import { createApp } from '../../api/app';
import { QUEUE_NAMES } from '../../workers/job-catalog';
import type { ApiContext } from '../../api/context';
import { routeSpecsOf } from '../../api/http/mount-routes';
import type { NamedRouteSpec } from '../../api/http/route-spec';
import { specViolation } from './conformance-check';
import type { TestEnv } from './test-env';

/** The real Express app over a test environment, for supertest, given the catalog's queues as bin/main.ts gives them. */
export function buildApp(env: TestEnv): { app: Express; ctx: ApiContext } {
  return createApp({ config: env.config, logger: env.logger, db: env.db, redis: env.redis, metrics: env.metrics, queue: env.queue, queueNames: QUEUE_NAMES });
}

type Target = Express | http.Server | string;
type Agent = ReturnType<typeof supertest>;

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'] as const;

/** The specs an app (or a server running one) was built from; none for probe apps and URLs. */
function routeSpecsFor(target: Target): readonly NamedRouteSpec[] | undefined {
  if (typeof target === 'string') return undefined;
  if (typeof target === 'function') return routeSpecsOf(target);
  const listener = target.listeners('request')[0];
  return typeof listener === 'function' ? routeSpecsOf(listener as Express) : undefined;
}

/** Adds the spec check as the test's last assertion, so a test's own expectations report first. */
function checked(test: supertest.Test, specs: readonly NamedRouteSpec[]): supertest.Test {
  const end = test.end.bind(test);
  test.end = (fn) => {
    test.expect((res: supertest.Response) => {
      const violation = specViolation(specs, test.method, new URL(test.url).pathname, res);
      if (violation) throw new Error(`spec: ${violation}`);
    });
    return end(fn);
  };
  return test;
}

/**
 * supertest, with every answer of an API app checked against the spec of the route it
 * matched (api/http): an undeclared status, a body off its schema or an undeclared error code
 * fails the test. Apps not built by createApp (probe apps) and bare URLs are not checked.
 */
export function request(target: Target): Agent {
  const agent = supertest(target);
  const specs = routeSpecsFor(target);
  if (!specs) return agent;
  for (const m of METHODS) {
    const call = agent[m].bind(agent) as (url: string) => supertest.Test;
    (agent as unknown as Record<string, (url: string) => supertest.Test>)[m] = (url: string) => checked(call(url), specs);
  }
  return agent;
}

// Types tests name as `request.Response`, as they did with supertest's default export.
// eslint-disable-next-line @typescript-eslint/no-namespace
export declare namespace request {
  type Response = supertest.Response;
  type Test = supertest.Test;
}
