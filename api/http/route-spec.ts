import type { Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';
import type { ExploreAction } from '../auth/explore-gate';
import type { RouteAction } from '../auth/route-auth';
import type { ErrorCase } from './error-cases';

/**
 * A route's spec: everything a client needs to call it, declared once next to the route.
 * The app mounts routes from these (parsing each request part with its schema), the OpenAPI
 * document is generated from them, and the API tests check every response against them.
 * docs/API.md explains how to add one.
 */

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';
/** `all` answers every method alike: only the removed premium activation does. */
export type RouteMethod = HttpMethod | 'all';

/**
 * Who may call the route: a row of `WHO_NEEDS_WHAT` (explore rows also name their widget
 * action), or the quote stream token, which is not a bearer and is checked by the service.
 */
export type RouteAuth = { action: Exclude<RouteAction, 'explore'> } | { action: 'explore'; challenge: ExploreAction } | { streamToken: true };

/**
 * Who checks the body: the spec (default: the route parses it before the handler runs),
 * the handler (the schema depends on the caller, e.g. the delegate mint), or the domain service
 * (the quote and offer bodies, whose parser lives in shared/quotes). Only `spec` bodies
 * reach the handler typed; the schema documents the body in every case.
 */
export type BodyCheck = 'spec' | 'handler' | 'service';

export interface RequestSpec {
  /** Path parameters, e.g. `{ id }` of `/api/quote/:id`. */
  params?: z.ZodType;
  query?: z.ZodType;
  /** Lower-case header names, as Node hands them over. */
  headers?: z.ZodType;
  body?: z.ZodType;
  bodyCheck?: BodyCheck;
  /** Path parameters that do not parse name nothing that exists: answer this (a 404) instead of a 400. */
  paramsMiss?: (raw: Record<string, string>) => Error;
  /** Named request body examples, shown in the OpenAPI document and parsed by the conformance tests. */
  examples?: Record<string, { summary: string; value: unknown }>;
}

export interface ResponseSpec {
  description: string;
  schema: z.ZodType;
  /** JSON unless said otherwise (the Prometheus scrape is text; the docs page HTML and its scripts). */
  contentType?: 'application/json' | 'text/plain' | 'text/html' | 'text/javascript';
  headers?: Record<string, string>;
  examples?: Record<string, { summary: string; value: unknown }>;
}

/** Success statuses and their bodies; error statuses come from `errors`. */
export type SuccessResponses = Partial<Record<200 | 201 | 204, ResponseSpec>>;

export interface RouteSpec<Req extends RequestSpec = RequestSpec, Res extends SuccessResponses = SuccessResponses> {
  method: RouteMethod;
  /** Express path template, from the root: `/api/quote/:id`. */
  path: string;
  summary: string;
  description?: string;
  tags: readonly string[];
  auth: RouteAuth;
  /** Cache-Control the route sets: shared-cacheable network data, or never stored. */
  cache: 'public' | 'no-store';
  request: Req;
  responses: Res;
  /** The route's own error answers; those of its auth rule and of the platform are added. */
  errors: readonly ErrorCase[];
  deprecated?: boolean;
}

/** Declares a spec, keeping its schemas' types for the handler. */
export function defineRoute<const Req extends RequestSpec, const Res extends SuccessResponses>(c: RouteSpec<Req, Res>): RouteSpec<Req, Res> {
  return c;
}

type Out<S> = S extends z.ZodType ? z.output<S> : Record<string, never>;

/** What a handler receives: each request part parsed by its schema. */
export interface RouteInput<Req extends RequestSpec> {
  params: Out<Req['params']>;
  query: Out<Req['query']>;
  headers: Out<Req['headers']>;
  body: Req['bodyCheck'] extends 'handler' | 'service' ? unknown : Req['body'] extends z.ZodType ? z.output<Req['body']> : undefined;
}

/** A success answer with its status, when a route has more than one or sets headers. */
export class Reply<B = unknown> {
  constructor(
    readonly status: number,
    readonly body: B,
    readonly headers: Record<string, string> = {},
  ) {}
}

type SuccessBody<Res extends SuccessResponses> = {
  [K in keyof Res]: Res[K] extends { schema: infer S extends z.ZodType } ? z.input<S> : never;
}[keyof Res];

export type RouteHandler<C extends RouteSpec> =
  C extends RouteSpec<infer Req, infer Res>
    ? (input: RouteInput<Req>, req: Request, res: Response) => Promise<SuccessBody<Res> | Reply<SuccessBody<Res>>>
    : never;

/** A handler, optionally with middleware the route runs first (a per-route rate limit). */
export type RouteBinding<C extends RouteSpec> = RouteHandler<C> | { before: RequestHandler[]; handle: RouteHandler<C> };

/** A spec under its key in the route table, which is also its OpenAPI operationId and its handler's key. */
export type NamedRouteSpec = RouteSpec & { id: string };

/** One binding per spec of a group: forgetting a handler is a type error. */
export type RouteHandlers<T extends Record<string, RouteSpec>> = { [K in keyof T]: RouteBinding<T[K]> };
