// Runs the built CLI, dist/cli.bundle.js, with V8's code cache. Node 20 compiles an ES module from
// its source on every start; a script can instead be given the code V8 compiled for it last time,
// which halves the time `svc serve` takes to load (the figures are in the README). The bundle is one
// function expression (scripts/build.mjs); this file compiles it, calls it with what a CommonJS
// module gets, and saves its compiled code in dist/.cache/ when there was none that V8 would take.
//
// `svc serve` saves its cache once it has run a while, so the cache holds the code of listening and
// of the first requests too; other commands save theirs as they exit. A cache that cannot be written
// (a read-only install) is skipped: svc then starts as fast as an uncached script does.
'use strict';
const { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } = require('node:fs');
const { createRequire, SourceMap } = require('node:module');
const { dirname, join } = require('node:path');
const { Script } = require('node:vm');

const CACHE_DIR = '.cache';

/**
 * The commands bin/svc.js runs from dist/client-core.bundle.js: the ones an agent runs most and a person
 * types first, whose code is a few modules (scripts/build.mjs builds that bundle with them alone). Every
 * other client command runs from dist/client.bundle.js. `undefined`: `svc` alone, which prints the help.
 */
const CORE_COMMANDS = new Set([undefined, 'status', 'token', '--help', '-h', '--version', '-v']);
const SERVE_SAVE_AFTER_MS = 2000;

/** Runs the bundle as the command `role` ('serve' or 'cli': each keeps its own cache). */
function runBundle(file, role) {
  const cacheFile = join(dirname(file), CACHE_DIR, `${role}-${cacheKey(file)}.v8`);
  // the build makes the bundles ASCII: read as Latin-1 they need no UTF-8 decoding and stay one-byte strings
  const script = new Script(readFileSync(file, 'latin1'), { filename: file, cachedData: readIfPresent(cacheFile) });
  // undefined: there was no cache; true: V8 refused it
  if (script.cachedDataRejected !== false) {
    const save = () => saveCache(script, cacheFile);
    if (role === 'serve') setTimeout(save, SERVE_SAVE_AFTER_MS).unref();
    else process.once('exit', save);
  }
  if (process.sourceMapsEnabled) mapStackTraces(file);
  const module = { exports: {} };
  script.runInThisContext()(createRequire(file), module, module.exports, file, dirname(file));
}

/**
 * `node --enable-source-maps bin/svc.js …`: stack frames in the bundle name their source file, line and
 * column. Node maps the files it loads itself, not a script compiled through node:vm, and the bundle keeps
 * no function names (scripts/build.mjs), so this is how a trace becomes readable. The map is read on the
 * first trace.
 */
function mapStackTraces(file) {
  let map;
  const where = (frame) => {
    map ??= new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
    const entry = map.findEntry(frame.getLineNumber() - 1, frame.getColumnNumber() - 1);
    if (!entry?.originalSource) return undefined;
    const source = entry.originalSource.replace(/^(\.\.\/)+/, '');
    return `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  };
  Error.prepareStackTrace = (error, frames) => {
    const lines = frames.map((frame) => {
      const mapped = frame.getFileName() === file ? where(frame) : undefined;
      if (!mapped) return `    at ${frame}`;
      return `    at ${frame.isAsync() ? 'async ' : ''}${frame.getFunctionName() ?? '<anonymous>'} (${mapped})`;
    });
    return [String(error), ...lines].join('\n');
  };
}

/**
 * V8 takes a cache made by the same V8 with the same flags for a source of the same length; the key
 * adds what tells two builds and two ways of starting node apart, so neither overwrites the other's.
 */
function cacheKey(file) {
  const { size, mtimeMs } = statSync(file);
  return fnv1a([process.version, process.execArgv.join(' '), process.env.NODE_OPTIONS ?? '', size, Math.trunc(mtimeMs)].join('\n'));
}

/** A 32-bit FNV-1a hash, as 8 hex digits. */
function fnv1a(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}

function readIfPresent(path) {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

function saveCache(script, cacheFile) {
  try {
    mkdirSync(dirname(cacheFile), { recursive: true });
    const partial = `${cacheFile}.${process.pid}.part`;
    writeFileSync(partial, script.createCachedData());
    renameSync(partial, cacheFile);
  } catch {
    // a read-only install: run uncached
  }
}

module.exports = { CACHE_DIR, CORE_COMMANDS, runBundle };
