import { createHash } from 'node:crypto';
import { buildAsyncApiDocument } from '../http/asyncapi-document';
import { buildOpenApiDocument } from '../http/openapi-document';
import { API_ROUTES } from './route-table';
import { ROUTE_TAGS } from './route-tags';

/**
 * What API_VERSION versions, as one hash: the OpenAPI document of the route specs and the
 * AsyncAPI document of the topic table (both state the version), built with a placeholder
 * version so that the version itself is not part of it. `api-version.json` records a version and
 * the fingerprint of the documents it was given to; test/unit/api/api-version.test.ts fails when
 * the documents drift from it, and `npm run api:fingerprint` (bin/api-fingerprint.ts) raises the
 * version and records the new fingerprint (docs/API.md, "The API version").
 */
export function apiFingerprint(): string {
  const documents = { openapi: buildOpenApiDocument(API_ROUTES, ROUTE_TAGS, 'unversioned'), asyncapi: buildAsyncApiDocument('unversioned') };
  return `sha256:${createHash('sha256').update(JSON.stringify(documents)).digest('hex')}`;
}

const SEMVER = /^(\d+)\.(\d+)\.(\d+)$/;

/** `major.minor.patch` as numbers, or null for anything else. */
export function parseVersion(v: string): [number, number, number] | null {
  const m = SEMVER.exec(v);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

/** The version after `v` when the documents changed: the next minor (the API is before 1.0, where a minor may break). */
export function nextVersion(v: string): string {
  const p = parseVersion(v);
  if (!p) throw new Error(`API_VERSION ${v} is not major.minor.patch`);
  return `${p[0]}.${p[1] + 1}.0`;
}

/** Whether version `a` comes before `b`. */
export function versionBefore(a: string, b: string): boolean {
  const [pa, pb] = [parseVersion(a), parseVersion(b)];
  if (!pa || !pb) throw new Error(`not major.minor.patch: ${pa ? b : a}`);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i] < pb[i];
  return false;
}
