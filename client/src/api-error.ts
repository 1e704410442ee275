import type { ErrorBody } from './api.types';

/**
 * A non-2xx answer of the API, carrying its error body (docs/API.md, "Conventions of every answer"): branch on `code` (stable,
 * snake_case), show `error`, point at the bad fields with `details`, quote `requestId` to support.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly error: string;
  readonly details: ErrorBody['details'];
  readonly requestId: string;

  constructor(
    readonly method: string,
    readonly path: string,
    status: number,
    body: ErrorBody,
  ) {
    super(`${method} ${path} -> ${status} ${body.code}: ${body.error}`);
    this.name = 'ApiError';
    this.status = status;
    this.code = body.code;
    this.error = body.error;
    this.details = body.details;
    this.requestId = body.request_id;
  }

  /** The error body as the server sent it. */
  get body(): ErrorBody {
    return { error: this.error, code: this.code, ...(this.details ? { details: this.details } : {}), request_id: this.requestId };
  }
}

/**
 * What a non-JSON or foreign error answer becomes (a proxy's HTML 502, say): still an ApiError,
 * so callers handle one type; `code` says the body was not the API's.
 */
export function foreignErrorBody(status: number, text: string, requestId: string | null): ErrorBody {
  return { error: text.slice(0, 200) || `HTTP ${status}`, code: 'unexpected_response', request_id: requestId ?? 'unknown' };
}
