import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../logging';

/**
 * What the service answers when Node's HTTP parser refuses a request before any route sees it:
 * the error body every other 4xx carries (`{error, code, request_id}`, the id also in
 * X-Request-Id), instead of Node's bare status line. Declared for every route in
 * api/http/error-cases.ts (PLATFORM_ERRORS), which takes these texts.
 */
export const PARSER_ANSWERS = {
  /** The request line and headers together exceed Node's limit (a long query string, say). */
  headersTooLarge: { status: 431, code: 'request_headers_too_large', message: `request line and headers larger than ${http.maxHeaderSize} bytes` },
  /** The whole request did not arrive within the server's requestTimeout. */
  requestTimeout: { status: 408, code: 'request_timeout', message: 'the request did not arrive in time' },
  /** Anything else the parser refuses: a malformed request line, a header with forbidden characters, a bad chunk. */
  malformed: { status: 400, code: 'malformed_request', message: 'the request is not valid HTTP/1.1' },
} as const;

type ParserAnswer = (typeof PARSER_ANSWERS)[keyof typeof PARSER_ANSWERS];

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/** How long a refused connection may stay open for the client to read the answer and close its side. */
const LINGER_MS = 5_000;

/** The answer for a parser error, by its code (as Node's own default handler picks its status). */
export function parserAnswerFor(code: string | undefined): ParserAnswer {
  if (code === 'HPE_HEADER_OVERFLOW') return PARSER_ANSWERS.headersTooLarge;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return PARSER_ANSWERS.requestTimeout;
  return PARSER_ANSWERS.malformed;
}

/** The raw HTTP/1.1 answer: there is no request or response object to write it through. */
export function rawAnswer(answer: ParserAnswer, requestId: string): string {
  const body = JSON.stringify({ error: answer.message, code: answer.code, request_id: requestId });
  return [
    `HTTP/1.1 ${answer.status} ${REASONS[answer.status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'Cache-Control: no-store',
    'X-Content-Type-Options: nosniff',
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * Answers every request the parser refuses on `server` (its 'clientError') with the error body,
 * then closes the connection once the client has read it (or after LINGER_MS). A request refused
 * behind one still being answered on the same connection (pipelined) is answered after it; a
 * connection that broke is only closed, as Node does.
 */
export function answerParserErrors(server: http.Server, logger: Logger): void {
  const answered = new WeakSet<Duplex>();
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // The parser stays in its error state: later bytes on this connection raise the event again.
    if (answered.has(socket)) return;
    answered.add(socket);
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const answer = parserAnswerFor(err.code);
    const requestId = randomUUID();
    logger.info({ request_id: requestId, status: answer.status, code: answer.code, parser_error: err.code }, 'request refused by the HTTP parser');
    const linger = setTimeout(() => socket.destroy(), LINGER_MS);
    linger.unref();
    socket.once('close', () => clearTimeout(linger));
    const send = () => {
      if (socket.writable) socket.end(rawAnswer(answer, requestId));
    };
    const inFlight = (socket as Duplex & { _httpMessage?: http.ServerResponse | null })._httpMessage;
    if (inFlight && !inFlight.writableFinished) inFlight.once('finish', send);
    else send();
  });
}
