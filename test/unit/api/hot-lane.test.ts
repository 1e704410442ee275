import express, { type NextFunction, type Request, type Response } from 'express';
import supertest from 'supertest';
import { hotLane, type LaneRoute } from '../../../api/http/hot-lane';

/** What a handler saw of the request: the fields the /api router sets before a route runs. */
interface Seen {
  url: string;
  baseUrl: string;
  params: unknown;
  route: unknown;
}

/**
 * An app with the lane for `POST /api/quote` in front of a plain /api router that answers the same
 * path, so each answer says which of the two ran it; an error handler that reports what it got
 * and the URL it saw.
 */
function appWith(chain: LaneRoute['chain'], front: LaneRoute['chain'] = []) {
  const app = express();
  app.use(hotLane('/api', [{ method: 'post', path: '/api/quote', chain }], front));
  for (const handler of front) app.use(handler);
  const api = express.Router();
  api.post('/quote', (req, res) => {
    res.json({ by: 'router', url: req.url, baseUrl: req.baseUrl });
  });
  app.use('/api', api);
  app.use((err: Error, req: Request, res: Response, _next: NextFunction) => {
    res.status(500).json({ error: err.message, url: req.url, baseUrl: req.baseUrl });
  });
  return app;
}

describe('the hot lane', () => {
  it('runs a route it holds through its chain in order, with the URL, base, params and route the /api router would have set', async () => {
    const order: string[] = [];
    const seen: Seen[] = [];
    const app = appWith([
      (_req, _res, next) => {
        order.push('first');
        next();
      },
      async (_req, _res, next) => {
        await new Promise((r) => setImmediate(r));
        order.push('second (async)');
        next();
      },
      (req, res) => {
        order.push('answer');
        seen.push({ url: req.url, baseUrl: req.baseUrl, params: req.params, route: (req as { route?: unknown }).route });
        res.status(201).json({ by: 'lane' });
      },
    ]);
    const res = await supertest(app).post('/api/quote').send({});
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ by: 'lane' });
    expect(order).toEqual(['first', 'second (async)', 'answer']);
    expect(seen).toEqual([{ url: '/quote', baseUrl: '/api', params: {}, route: { path: '/quote', method: 'post' } }]);
  });

  it('leaves every other spelling of the path, and every other method, to the routers', async () => {
    const app = appWith([(_req, res) => res.json({ by: 'lane' })]);
    for (const path of ['/api/quote/', '/api/QUOTE', '/api/quote?x=1']) {
      const res = await supertest(app).post(path).send({});
      expect({ path, body: res.body as unknown }).toEqual({ path, body: { by: 'router', url: expect.stringMatching(/^\/quote/i), baseUrl: '/api' } });
    }
    expect((await supertest(app).get('/api/quote')).status).toBe(404);
  });

  it('sends a thrown error and a rejected promise to the error handler with the URL restored, and never lets a route fall through to the routers', async () => {
    const thrown = appWith([
      () => {
        throw new Error('thrown');
      },
    ]);
    expect((await supertest(thrown).post('/api/quote')).body).toEqual({ error: 'thrown', url: '/api/quote', baseUrl: '' });
    const rejected = appWith([(_req, _res, next) => next(), () => Promise.reject(new Error('rejected'))]);
    expect((await supertest(rejected).post('/api/quote')).body).toEqual({ error: 'rejected', url: '/api/quote', baseUrl: '' });
    const passed = appWith([(_req, _res, next) => next(new Error('passed to next'))]);
    expect((await supertest(passed).post('/api/quote')).body).toEqual({ error: 'passed to next', url: '/api/quote', baseUrl: '' });
    const fellThrough = appWith([(_req, _res, next) => next()]);
    const res = await supertest(fellThrough).post('/api/quote');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'lane route POST /api/quote fell through its chain', url: '/api/quote', baseUrl: '' });
  });

  it("runs the app's front handlers first, in order, on the request as the app sees it; for any other request they run as app layers", async () => {
    const seen: string[] = [];
    const front: LaneRoute['chain'] = [
      (req, _res, next) => {
        seen.push(`span ${req.url} ${req.baseUrl}`);
        next();
      },
      (req, res, next) => {
        seen.push(`context ${req.url}`);
        res.setHeader('X-Front', 'ran');
        next();
      },
    ];
    const app = appWith(
      [
        (req, res) => {
          seen.push(`answer ${req.url} ${req.baseUrl}`);
          res.status(201).json({ by: 'lane' });
        },
      ],
      front,
    );
    const byLane = await supertest(app).post('/api/quote').send({});
    expect([byLane.status, byLane.headers['x-front']]).toEqual([201, 'ran']);
    expect(seen.splice(0)).toEqual(['span /api/quote ', 'context /api/quote', 'answer /quote /api']);
    // Another spelling: the lane passes, and the same handlers run once each as the app's layers.
    const byRouter = await supertest(app).post('/api/quote/').send({});
    expect([byRouter.body, byRouter.headers['x-front']]).toEqual([{ by: 'router', url: '/quote/', baseUrl: '/api' }, 'ran']);
    expect(seen).toEqual(['span /api/quote/ ', 'context /api/quote/']);
  });

  it("sends a front handler's error to the error handler, the route's chain never run", async () => {
    let ran = false;
    const app = appWith(
      [
        (_req, res) => {
          ran = true;
          res.json({ by: 'lane' });
        },
      ],
      [(_req, _res, next) => next(new Error('refused in front'))],
    );
    expect((await supertest(app).post('/api/quote')).body).toEqual({ error: 'refused in front', url: '/api/quote', baseUrl: '' });
    expect(ran).toBe(false);
  });

  it('refuses at build time a path with parameters or outside its base', () => {
    expect(() => hotLane('/api', [{ method: 'post', path: '/api/quote/:id', chain: [] }])).toThrow(/literal paths only/);
    expect(() => hotLane('/api', [{ method: 'post', path: '/quote', chain: [] }])).toThrow(/not under \/api\//);
  });
});
