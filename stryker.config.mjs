// Mutation testing (StrykerJS): `npm run mutate` runs scripts/mutate.mjs, which runs Stryker once per
// module below with this base. The tap runner runs each test file as one node process (node:test
// prints TAP; tsx loads TypeScript); perTest coverage maps each mutant to the test files that reach
// it, so a mutant runs only those. Incremental results live in reports/mutation/ (gitignored).

/**
 * The modules under mutation: the source they mutate and the test files that guard them. Each mutant
 * costs a node process per covering file, so the unit-level files are listed (the server-level ones,
 * e.g. test/http/guard.test.ts, still run in `npm test`); integration files only where no unit file exists.
 */
export const MODULES = {
  guard: { mutate: ['src/http/guard.ts', 'src/http/peers.ts'], tests: ['test/http/guard-rules.test.ts', 'test/http/guard-edges.test.ts', 'test/http/peers.test.ts'] },
  'error-handler': { mutate: ['src/http/error-handler.ts'], tests: ['test/http/error-handler.test.ts', 'test/http/errors.test.ts'] },
  settings: { mutate: ['src/modules/settings/settings.model.ts', 'src/modules/settings/settings.service.ts'], tests: ['test/modules/settings/settings-redact.test.ts', 'test/modules/settings/settings-service.test.ts'] },
  redaction: { mutate: ['src/agent/redact.ts'], tests: ['test/agent/redact.test.ts'] },
  media: { mutate: ['src/modules/media/media.service.ts', 'src/modules/media/attachments.ts'], tests: ['test/modules/media/attachments.test.ts', 'test/modules/media/media-store.test.ts'] },
  sse: { mutate: ['src/events/stream.ts', 'src/events/slots.ts', 'src/events/wire.ts'], tests: ['test/events/bus.test.ts', 'test/events/stream.test.ts'] },
  messages: { mutate: ['src/modules/chat/messages.repo.ts'], tests: ['test/modules/chat/fts-query.test.ts', 'test/modules/chat/search-window.test.ts', 'test/modules/chat/move-to-end.test.ts', 'test/modules/chat/messages-repo.test.ts'] },
  runtime: { mutate: ['src/agent/runtime.ts'], tests: ['test/agent/runtime.test.ts'] },
  'web-routing': { mutate: ['src/modules/automation/web-routing/pattern.ts'], tests: ['test/modules/automation/web-routing/pattern.test.ts', 'test/modules/automation/web-routing/pattern-edges.test.ts'] },
  'memory-paths': { mutate: ['src/modules/memory/paths.ts'], tests: ['test/modules/memory/paths.test.ts'] },
  'orchestration-machine': { mutate: ['src/modules/orchestration/machine.ts'], tests: ['test/modules/orchestration/machine.test.ts'] },
  'goal-machine': { mutate: ['src/modules/goals/machine.ts', 'src/modules/goals/continuation.ts'], tests: ['test/modules/goals/machine.test.ts', 'test/modules/goals/continuation.test.ts'] },
  'audit-chain': { mutate: ['src/modules/security-audit/chain.ts'], tests: ['test/modules/security-audit/chain.test.ts'] },
};

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'tap',
  plugins: ['@stryker-mutator/tap-runner', '@stryker-mutator/typescript-checker'],
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.json',
  // node:test run in-process (no --test, so the coverage hook sees the code), TypeScript through tsx
  tap: { testFiles: Object.values(MODULES).flatMap((m) => m.tests), nodeArgs: ['--import', 'tsx', '--test-reporter=tap', '-r', '{{hookFile}}', '{{testFile}}'], forceBail: true },
  mutate: Object.values(MODULES).flatMap((m) => m.mutate),
  coverageAnalysis: 'perTest',
  concurrency: 1,
  timeoutMS: 10_000,
  timeoutFactor: 2,
  incremental: true,
  incrementalFile: 'reports/mutation/all.incremental.json',
  ignorePatterns: ['dist', 'web', 'bench', '.cache', 'reports', 'test-output', '*.db*'],
  reporters: ['clear-text', 'progress'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  thresholds: { high: 90, low: 85 },
};
