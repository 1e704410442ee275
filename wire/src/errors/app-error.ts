/** One bad field of a request, as returned in `details`. */
export interface FieldProblem {
  path: string;
  message: string;
}

/**
 * The project's error classes. The API's error middleware maps them to the status and
 * `{error, code, details?, request_id}` body; anything else becomes a bare 500.
 * `error` is what a client shows, `code` what a client branches on.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: FieldProblem[],
    readonly headers?: Record<string, string>,
    /** Further fields of the error body a client acts on (e.g. an exclusive fill's bond shortfall). */
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends AppError {
  constructor(details: FieldProblem[], message = 'invalid request') {
    super(400, 'validation_failed', message, details);
  }

  /** A single bad field. */
  static field(path: string, message: string): ValidationError {
    return new ValidationError([{ path, message }], `${path}: ${message}`);
  }
}

export class BadRequestError extends AppError {
  constructor(message: string, code = 'bad_request', details?: FieldProblem[]) {
    super(400, code, message, details);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'authentication required', code = 'unauthorized') {
    super(401, code, message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'forbidden', code = 'forbidden', details?: FieldProblem[], extra?: Record<string, unknown>) {
    super(403, code, message, details, undefined, extra);
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'not found', code = 'not_found') {
    super(404, code, message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, code = 'conflict', details?: FieldProblem[]) {
    super(409, code, message, details);
  }
}

export class GoneError extends AppError {
  constructor(message = 'gone', code = 'gone') {
    super(410, code, message);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(limitBytes: number) {
    super(413, 'payload_too_large', `request body larger than ${limitBytes} bytes`);
  }
}

export class TooManyRequestsError extends AppError {
  /** `limit`, when given, names the budget that ran out (its config key) in the body's `limit`. */
  constructor(retryAfterSeconds: number, message = 'too many requests', limit?: string) {
    super(
      429,
      'rate_limited',
      message,
      undefined,
      { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
      limit === undefined ? undefined : { limit },
    );
  }
}

export class NotImplementedError extends AppError {
  constructor(message: string, code = 'not_implemented') {
    super(501, code, message);
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(message: string, code = 'unavailable', retryAfterSeconds?: number) {
    super(503, code, message, undefined, retryAfterSeconds ? { 'Retry-After': String(retryAfterSeconds) } : undefined);
  }
}
