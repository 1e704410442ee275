import type http from 'node:http';
import type { Express } from 'express';
import supertest from 'supertest';
import { createApp } from '../../api/app';
import type { ApiContext } from '../../api/context';
import { contractsOf } from '../../api/contract/mount-routes';
import type { NamedContract } from '../../api/contract/route-contract';
import { contractViolation } from './contract-check';
import type { TestEnv } from './test-env';

/** The real Express app over a test environment, for supertest. */
export function buildApp(env: TestEnv): { app: Express; ctx: ApiContext } {
  return createApp({ config: env.config, logger: env.logger, db: env.db, redis: env.redis, metrics: env.metrics, queue: env.queue });
}

type Target = Express | http.Server | string;
type Agent = ReturnType<typeof supertest>;

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'] as const;

/** The contracts an app (or a server running one) was built from; none for probe apps and URLs. */
function contractsFor(target: Target): readonly NamedContract[] | undefined {
  if (typeof target === 'string') return undefined;
  if (typeof target === 'function') return contractsOf(target);
  const listener = target.listeners('request')[0];
  return typeof listener === 'function' ? contractsOf(listener as Express) : undefined;
}

/** Adds the contract check as the test's last assertion, so a test's own expectations report first. */
function checked(test: supertest.Test, contracts: readonly NamedContract[]): supertest.Test {
  const end = test.end.bind(test);
  test.end = (fn) => {
    test.expect((res: supertest.Response) => {
      const violation = contractViolation(contracts, test.method, new URL(test.url).pathname, res);
      if (violation) throw new Error(`contract: ${violation}`);
    });
    return end(fn);
  };
  return test;
}

/**
 * supertest, with every answer of an API app checked against the contract of the route it
 * matched (api/contract): an undeclared status, a body off its schema or an undeclared error code
 * fails the test. Apps not built by createApp (probe apps) and bare URLs are not checked.
 */
export function request(target: Target): Agent {
  const agent = supertest(target);
  const contracts = contractsFor(target);
  if (!contracts) return agent;
  for (const m of METHODS) {
    const call = agent[m].bind(agent) as (url: string) => supertest.Test;
    (agent as unknown as Record<string, (url: string) => supertest.Test>)[m] = (url: string) => checked(call(url), contracts);
  }
  return agent;
}

// Types tests name as `request.Response`, as they did with supertest's default export.
// eslint-disable-next-line @typescript-eslint/no-namespace
export declare namespace request {
  type Response = supertest.Response;
  type Test = supertest.Test;
}
