// One error type for the whole service. Every failure that reaches a client is an ApiError (or is
// mapped to one by the error handler) and leaves as {"error": CODE, "message": "...", ...details}.
// Codes are stable and machine-readable; messages are for people and say what to do next.

export type ErrorDetails = Record<string, unknown>;

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details?: ErrorDetails;

  constructor(status: number, code: string, message: string, details?: ErrorDetails) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
  }

  toBody(): { error: string; message: string } & ErrorDetails {
    return { error: this.code, message: this.message, ...this.details };
  }
}

export const badRequest = (code: string, message: string, details?: ErrorDetails) =>
  new ApiError(400, code, message, details);
export const unauthorized = (message = 'A valid bearer token is required. Get it with `svc token`.') =>
  new ApiError(401, 'UNAUTHORIZED', message);
export const forbidden = (code: string, message: string, details?: ErrorDetails) =>
  new ApiError(403, code, message, details);
export const notFound = (what: string, id?: string | number) =>
  new ApiError(404, 'NOT_FOUND', id === undefined ? `${what} not found.` : `${what} '${id}' not found.`);
export const conflict = (code: string, message: string, details?: ErrorDetails) =>
  new ApiError(409, code, message, details);
export const unavailable = (code: string, message: string, details?: ErrorDetails) =>
  new ApiError(503, code, message, details);
