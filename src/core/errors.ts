// One error type for the whole service. Every failure that reaches a client is an AppError (or is
// mapped to one by the HTTP kit's error handler) and leaves as {"error": CODE, "message": "...", ...details}.
// Codes are stable and machine-readable, and all of them are listed here; messages are for people
// and say what to do next. The domain raises AppErrors without knowing about HTTP: the status is
// part of the error's meaning (not found, conflict, unavailable), the transport only renders it.

/** Every error code the service answers with, by the area that raises it. */
export const ERROR_CODES = [
  // request shape and transport (src/http)
  'BAD_REQUEST', 'BAD_URL', 'INVALID_JSON', 'INVALID_CONTENT_LENGTH', 'VALIDATION_FAILED', 'UNSUPPORTED_MEDIA_TYPE',
  'PAYLOAD_TOO_LARGE', 'URI_TOO_LONG', 'HEADERS_TOO_LARGE', 'METHOD_NOT_ALLOWED', 'NOT_FOUND', 'UPGRADE_REQUIRED', 'INTERNAL',
  'RESPONSE_SCHEMA',
  // trust model
  'UNAUTHORIZED', 'HOST_NOT_ALLOWED', 'ORIGIN_NOT_ALLOWED', 'TOKEN_LOOPBACK_ONLY',
  // events
  'SSE_CAPACITY',
  // agent runs and commands
  'QUEUE_FULL', 'SHUTTING_DOWN', 'NOT_RUNNING', 'NOT_A_COMMAND', 'UNKNOWN_COMMAND', 'INVALID_COMMAND_ARGS', 'UNKNOWN_PROVIDER',
  // settings and media
  'INVALID_SETTING', 'INVALID_FILENAME', 'EMPTY_UPLOAD',
  // browser skill
  'BAD_SELECTOR', 'SELECTOR_AMBIGUOUS', 'ELEMENT_NOT_FOUND', 'REF_STALE', 'REF_UNKNOWN', 'BAD_REF', 'TIMEOUT', 'NAVIGATION_FAILED',
  'BROWSER_CLOSED', 'PAGE_CHANGED', 'TAB_NOT_FOUND', 'TAB_CLOSED', 'PAGE_CRASHED', 'EVAL_ERROR', 'RESULT_TOO_LARGE', 'BROWSER_ERROR',
  'BAD_WAIT_TARGET', 'BAD_COMMAND', 'NOT_EDITABLE', 'OUTSIDE_VIEWPORT', 'BAD_CDP_URL', 'ATTACHED_MODE_FIXED', 'BROWSER_NOT_FOUND',
  'BROWSER_LAUNCH_FAILED', 'BROWSER_LAUNCH_TIMEOUT', 'BROWSER_ATTACH_FAILED', 'BROWSER_CONNECT_FAILED', 'BROWSER_NO_CONTEXT', 'BROWSER_NO_DISPLAY',
  'BROWSER_PROFILE_UNWRITABLE', 'BROWSER_METRICS_FAILED', 'BROWSER_SERVER_START_FAILED', 'BROWSER_SERVER_DOWN',
  'BROWSER_SERVER_UNREACHABLE', 'BROWSER_SERVER_TIMEOUT', 'BROWSER_SERVER_CLOSING', 'BROWSER_SERVER_BAD_RESPONSE', 'PORT_IN_USE',
  // vision-click skill
  'INVALID_REQUEST', 'INVALID_REGION', 'TARGET_NOT_FOUND', 'LOW_CONFIDENCE', 'TARGET_UNAVAILABLE', 'UNSUPPORTED_PLATFORM', 'NO_DISPLAY',
  'BAD_SCREENSHOT', 'LOCATOR_UNAVAILABLE', 'OCR_UNAVAILABLE', 'VISION_NOT_CONFIGURED', 'VISION_BAD_ANSWER', 'VISION_MODEL_ERROR',
  'VISION_MODEL_TIMEOUT', 'VISION_MODEL_UNREACHABLE', 'VISION_CLI_FAILED', 'VISION_CLI_MISSING', 'DESKTOP_TOOL_MISSING',
  'DESKTOP_INPUT_FAILED', 'DESKTOP_FAILED', 'DESKTOP_CAPTURE_FAILED',
  // web-routing skill
  'INVALID_RULE', 'INVALID_PATTERN', 'INVALID_MOCK_BODY', 'INVALID_TARGET', 'INVALID_HEADER', 'INVALID_STATUS', 'INVALID_TRANSFORM',
  'INVALID_COMMAND', 'INVALID_OPTION', 'INVALID_URL', 'INVALID_ID',
  // the web-routing proxy's own answers, and a block rule's (in the proxy and in the controlled browser)
  'BLOCKED_BY_RULE', 'NOT_A_PROXY_REQUEST', 'LOOP_DETECTED', 'UPSTREAM_ERROR', 'UPSTREAM_TIMEOUT', 'PROXY_ERROR',
  // web-ai skill
  'NEEDS_LOGIN', 'CAPTCHA', 'WEB_AI_UNKNOWN_VENDOR', 'WEB_AI_PROFILE_INVALID', 'WEB_AI_NO_URL', 'WEB_AI_LAYOUT_UNKNOWN', 'WEB_AI_BUSY',
  'WEB_AI_SEND_FAILED', 'WEB_AI_NO_ATTACH', 'WEB_AI_SESSION_NOT_FOUND', 'WEB_AI_SESSION_LOST', 'WEB_AI_NO_ANSWER', 'WEB_AI_NO_TAB',
  'WEB_AI_FILE_NOT_FOUND', 'OUTSIDE_WORKING_DIR', 'FILE_EXISTS',
  // memory
  'INVALID_MEMORY_PATH', 'INVALID_MEMORY_CONTENT', 'INVALID_LINES',
  // orchestration and dispatch
  'ORC_GATE_MISSING', 'ORC_TRANSITION_NOT_ALLOWED', 'ORC_HUMAN_ONLY', 'ORC_WRONG_PHASE', 'ORC_NOT_ALLOWED', 'CHECK_NOT_SET',
  'EMPLOYEE_EXISTS', 'WORKER_RUN_ENDED', 'READ_ONLY_UNSUPPORTED',
  // goals, tasks, wakeups
  'GOAL_EXISTS', 'NO_GOAL', 'GOAL_STATE', 'GOAL_DONE_REJECTED', 'GOAL_PAUSE_NEEDS_AUDIT', 'GOAL_PREFLIGHT_FAILED', 'GOAL_NOT_SUPERVISED', 'GOAL_HUMAN_ONLY',
  'INVALID_PROJECT_ROOT', 'INVALID_DELAY', 'TASK_CYCLE',
  // chat channels
  'UNKNOWN_CHANNEL', 'CHANNEL_NOT_CONNECTED', 'TARGET_NOT_ALLOWED', 'NO_TARGET', 'CHANNEL_SEND_FAILED', 'INVALID_FILE_PATH', 'FILE_NOT_FOUND',
  'FILE_NOT_ALLOWED', 'FILE_TOO_LARGE',
  // voice input
  'VOICE_NOT_CONFIGURED', 'VOICE_ENGINE_MISSING', 'UNREADABLE_AUDIO', 'TRANSCRIPTION_FAILED', 'EMPTY_TRANSCRIPT',
  // MCP servers
  'INVALID_MCP_SERVER', 'MCP_INSTALL_FAILED', 'MCP_INSTALL_BUSY', 'MCP_SYNC_FAILED',
  // skills
  'INVALID_SKILL', 'SKILL_EXISTS', 'SKILL_INSTALL_FAILED',
  // pi profiles
  'PI_DISCOVERY_FAILED',
  // manager dashboard
  'INSTANCE_NOT_OWNED', 'INSTANCE_BUSY', 'INSTANCE_UNREACHABLE', 'INSTANCE_START_FAILED', 'INSTANCE_EXISTS', 'PROXY_PATH_REFUSED',
  // the fleet (svc dashboard serve --fleet)
  'FLEET_DISABLED',
  // executive agent
  'WATCH_EXISTS', 'WATCH_ENDED', 'COMPLETION_HANDLED', 'INVALID_CONFIRMATION', 'CONFIRMATION_INVALID', 'CONFIRMATION_REQUIRED',
  'QUERY_REFUSED', 'DOCS_EDIT_REFUSED', 'PATCH_NOT_APPLIED', 'EXECUTIVE_BUSY', 'REALTIME_NOT_CONFIGURED', 'REALTIME_FAILED', 'PERSON_REQUIRED',
  // tool permissions answered by a person
  'ALREADY_DECIDED', 'DECISION_TOKEN_INVALID',
  // trace retention (src/modules/traces)
  'TRACE_REMOVED',
  // worker worktrees (src/modules/orchestration/worktrees)
  'NOT_A_GIT_REPOSITORY', 'NO_WORKTREE', 'WORKTREE_BUSY', 'MERGE_CONFLICT', 'GIT_FAILED', 'UNMERGED_WORKTREES',
  // model endpoints (src/modules/models)
  'ENDPOINT_EXISTS', 'ENDPOINT_IN_USE',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

const KNOWN_CODES: ReadonlySet<string> = new Set(ERROR_CODES);

/** A code read from another svc process (the browser server, an instance) is one of ours. */
export const isErrorCode = (value: unknown): value is ErrorCode => typeof value === 'string' && KNOWN_CODES.has(value);

export type ErrorDetails = Record<string, unknown>;

/** The JSON body of every error answer. */
export type ErrorBody = { error: ErrorCode; message: string } & ErrorDetails;

export class AppError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly details?: ErrorDetails;

  constructor(status: number, code: ErrorCode, message: string, details?: ErrorDetails) {
    super(message);
    this.name = 'AppError';
    this.status = status;
    this.code = code;
    this.details = details;
  }

  toBody(): ErrorBody {
    return { error: this.code, message: this.message, ...this.details };
  }
}

export const badRequest = (code: ErrorCode, message: string, details?: ErrorDetails) =>
  new AppError(400, code, message, details);
export const unauthorized = (message = 'A valid bearer token is required. Get it with `svc token`.') =>
  new AppError(401, 'UNAUTHORIZED', message);
export const forbidden = (code: ErrorCode, message: string, details?: ErrorDetails) =>
  new AppError(403, code, message, details);
export const notFound = (what: string, id?: string | number) =>
  new AppError(404, 'NOT_FOUND', id === undefined ? `${what} not found.` : `${what} '${id}' not found.`);
export const conflict = (code: ErrorCode, message: string, details?: ErrorDetails) =>
  new AppError(409, code, message, details);
export const unavailable = (code: ErrorCode, message: string, details?: ErrorDetails) =>
  new AppError(503, code, message, details);
