// Who is calling: a human (the UI, the API, the `svc` CLI in a shell) or the main agent of a run,
// which proves it with the credential it was given in its environment. Shared by the server and the
// CLI, so the names are written once.

/** The environment variable a main-agent run's CLI finds its credential in. */
export const RUN_TOKEN_ENV = 'SVC_RUN_TOKEN';
/** The request header the `svc` CLI sends that credential in. */
export const RUN_TOKEN_HEADER = 'x-svc-run-token';

/** Who a credential belongs to: the run (its trace id) and the chat session it runs for. */
export interface RunIdentity {
  runId: string;
  sessionId: string;
}

/**
 * A request's caller. A request that carries a credential is an agent's, even when the credential is
 * no longer valid (its run ended): it is never taken for a human's.
 */
export type Caller = { kind: 'human' } | { kind: 'agent'; run?: RunIdentity };
