import type { Response } from 'express';

/**
 * A write route's JSON answer (POST, PUT, PATCH, DELETE), written as Express's `res.json` writes
 * it (`Content-Type: application/json; charset=utf-8`, `Content-Length`, the JSON text) but
 * without the rest of `res.send`'s work, which a write's answer never uses: a weak ETag hashed
 * from the body (the body copied into a Buffer for it) and the freshness check behind it, both
 * for revalidating a stored GET. A write's answer is `Cache-Control: no-store`: nothing keeps it
 * to revalidate. Read routes keep `res.json` and their ETags. False when the answer is not one
 * this writes (no body, a status without one): the caller then answers with `res.json`.
 */
export function sentAsWriteJson(res: Response, status: number, body: unknown): boolean {
  if (body === undefined || status === 204 || status === 304) return false;
  const text = JSON.stringify(body);
  res.statusCode = status;
  if (!res.hasHeader('Content-Type')) res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
  return true;
}
