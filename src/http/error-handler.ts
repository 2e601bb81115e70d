// Maps every error to the one body shape {"error": CODE, "message": "..."}. Bad input is always a
// 4xx; only real faults are 500, and those never leak a stack or internal message.
import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ZodError } from 'zod';
import { AppError, isErrorCode, type ErrorCode } from '../core/errors.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;

const FASTIFY_CODES: Record<string, [number, ErrorCode, string]> = {
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'INVALID_JSON', 'The request body is not valid JSON.'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'INVALID_JSON', 'The request body is empty; send a JSON object (e.g. {}).'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'INVALID_CONTENT_LENGTH', 'The Content-Length does not match the body.'],
  FST_ERR_BAD_URL: [400, 'BAD_URL', 'The request URL is malformed (an invalid percent-encoding?).'],
  FST_ERR_MAX_PARAM_LENGTH: [414, 'URI_TOO_LONG', 'A path parameter is longer than 100 characters.'],
};

const MiB = 1024 * 1024;

/** `bodyLimit`: the limit of the route that refused the body (POST /api/upload has its own). */
export function toAppError(error: unknown, bodyLimit = BODY_LIMIT_BYTES): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof ZodError) {
    const issue = error.issues[0];
    const field = issue?.path.map(String).join('.') || 'body';
    return new AppError(400, 'VALIDATION_FAILED', `${field}: ${issue?.message ?? 'invalid'}`, { field });
  }
  const fastifyError = (error ?? {}) as FastifyError; // `throw undefined` is still a fault, not a crash here
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    const limit = bodyLimit % MiB === 0 ? `${bodyLimit / MiB} MiB` : `${bodyLimit} bytes`;
    return new AppError(413, 'PAYLOAD_TOO_LARGE', `The request body exceeds the ${limit} limit of this route.`);
  }
  const mapped = fastifyError.code ? FASTIFY_CODES[fastifyError.code] : undefined;
  if (mapped) return new AppError(mapped[0], mapped[1], mapped[2]);
  if (error instanceof SyntaxError) return new AppError(400, 'INVALID_JSON', 'The request body is not valid JSON.');
  const status = fastifyError.statusCode;
  if (status && status >= 400 && status < 500) {
    return new AppError(status, isErrorCode(fastifyError.code) ? fastifyError.code : 'BAD_REQUEST', fastifyError.message);
  }
  return new AppError(500, 'INTERNAL', 'Internal error; details are in the server log.');
}

export function errorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const apiError = toAppError(error, request.routeOptions.bodyLimit);
  if (apiError.status >= 500 && apiError.code === 'INTERNAL') request.server.svcLog.error(`${request.method} ${request.url.split('?')[0]} failed:`, error);
  if (apiError.status === 401) reply.header('WWW-Authenticate', 'Bearer realm="svc"');
  void reply.status(apiError.status).type('application/json; charset=utf-8').send(apiError.toBody());
  // A refused WebSocket upgrade: its socket left the HTTP server's keeping, so end it here or it
  // stays open (and holds server.close()) until the client gives up.
  if (request.headers.upgrade) reply.raw.once('finish', () => request.raw.socket.destroySoon());
}

/** Node's HTTP parser errors, which reach no route: their status, code and message. */
const PARSER_ERRORS: Record<string, [number, ErrorCode, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'HEADERS_TOO_LARGE', 'The request line and headers are over 16 KiB (a very long query?). Send less in the URL, or put it in a POST body.'],
  HPE_INVALID_CONTENT_LENGTH: [400, 'INVALID_CONTENT_LENGTH', 'The Content-Length header is not a number.'],
  HPE_UNEXPECTED_CONTENT_LENGTH: [400, 'INVALID_CONTENT_LENGTH', 'The request has both Content-Length and Transfer-Encoding.'],
  HPE_INVALID_METHOD: [400, 'BAD_REQUEST', 'The request method is not one HTTP knows.'],
  HPE_INVALID_CHUNK_SIZE: [400, 'BAD_REQUEST', 'The chunked request body is malformed (a chunk size that is not hexadecimal).'],
  HPE_INVALID_URL: [400, 'BAD_URL', 'The request URL is malformed (a control character, or a byte that must be percent-encoded?).'],
};

/**
 * Answers a request Node's parser refused, in the one error shape, on the raw socket: a bad
 * request line or headers (no request object exists), or a body whose framing breaks part-way (a
 * chunk size of `ZZ`) while its answer has not started. Once an answer has started, or the socket
 * cannot be written to, it is just closed (anything written then would corrupt that answer).
 */
export function writeClientError(error: Error & { code?: string }, socket: Socket): void {
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent: boolean } })._httpMessage;
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, code, message] = PARSER_ERRORS[error.code ?? ''] ?? [400, 'BAD_REQUEST' as const, 'The request is not valid HTTP.'];
  const body = JSON.stringify(new AppError(status, code, message).toBody());
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
