#!/usr/bin/env node
// Runs the built CLI (dist/cli.js, made by `npm install` / `npm run build`); in a checkout without
// a build it falls back to the TypeScript sources through tsx.
import { existsSync } from 'node:fs';

const built = new URL('../dist/cli.js', import.meta.url);
if (existsSync(built)) {
  await import(built.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/cli/main.ts', import.meta.url).href);
}
