// Bundles the browser apps: the chat UI (web/src) into web/dist and the manager dashboard's page
// (web/dashboard) into web/dist-dashboard; each is index.html plus content-hashed JS/CSS under
// assets/. No dev server is needed: the servers serve them (src/modules/ui/ui.routes.ts).
//
// Usage: node scripts/build-web.mjs [--dev]   (--dev: no minification, inline source maps)
//
// Every file is written to a temporary name and renamed into place, so a server (or a second
// build running at the same time, as parallel tests do) never reads a half-written file.
import { build } from 'esbuild';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const webDir = join(root, 'web');

/** The apps: where each one's entry and page template are, and where its build goes. */
export const APPS = {
  // the chat UI installs to a phone's home screen: its manifest, icons and service worker (at stable,
  // unhashed paths: a service worker's URL is its identity, and the manifest names the icons)
  chat: { entry: 'web/src/main.tsx', template: join(webDir, 'index.html'), outDir: join(webDir, 'dist'), installable: true },
  // the dashboard has the same service worker and icons, for the hub's own push notifications, and no manifest
  dashboard: { entry: 'web/dashboard/main.tsx', template: join(webDir, 'dashboard', 'index.html'), outDir: join(webDir, 'dist-dashboard'), worker: true },
};

function writeAtomic(path, contents) {
  const tmp = `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  writeFileSync(tmp, contents);
  renameSync(tmp, path);
}

const escapeAttr = (s) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** Builds every app; answers the chat UI's figures (what callers print). */
export async function buildWeb({ dev = false } = {}) {
  const [chat] = await Promise.all([buildApp(APPS.chat, { dev }), buildApp(APPS.dashboard, { dev })]);
  return chat;
}

export async function buildApp({ entry, template: templatePath, outDir, installable = false, worker = installable }, { dev = false } = {}) {
  const assetsDir = join(outDir, 'assets');
  const started = performance.now();
  mkdirSync(assetsDir, { recursive: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: { app: entry },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    // the first versions with CSS light-dark(), which the palette is written in
    target: ['chrome123', 'firefox120', 'safari17.5'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: !dev,
    sourcemap: dev ? 'inline' : false,
    legalComments: 'none',
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    loader: { '.svg': 'file' },
    metafile: true,
    write: false,
    outdir: assetsDir,
    logLevel: 'warning',
    define: { 'process.env.NODE_ENV': dev ? '"development"' : '"production"' },
  });
  const written = new Set();
  let js;
  let css;
  for (const file of result.outputFiles) {
    writeAtomic(file.path, file.contents);
    written.add(basename(file.path));
    // Compressed once here, served as they are (the server's static files use preCompressed):
    // the bundle goes over the wire at about a quarter of its size, at no cost per request.
    writeAtomic(`${file.path}.br`, brotliCompressSync(file.contents, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
    writeAtomic(`${file.path}.gz`, gzipSync(file.contents, { level: 9 }));
    written.add(`${basename(file.path)}.br`).add(`${basename(file.path)}.gz`);
    if (file.path.endsWith('.js')) js = file.path;
    if (file.path.endsWith('.css')) css = file.path;
  }
  if (!js || !css) throw new Error('build-web: esbuild produced no JS or no CSS bundle');
  // relative: the page also works under a path prefix (the manager's /i/<instanceId>/ proxy)
  const url = (path) => './' + relative(outDir, path).split('\\').join('/');
  const template = readFileSync(templatePath, 'utf8');
  const html = template
    .replace('<!--styles-->', `<link rel="stylesheet" href="${escapeAttr(url(css))}">`)
    .replace('<!--scripts-->', `<script type="module" src="${escapeAttr(url(js))}"></script>`);
  writeAtomic(join(outDir, 'favicon.svg'), readFileSync(join(webDir, 'favicon.svg')));
  if (worker) await buildInstallable(outDir, { dev, manifest: installable });
  writeAtomic(join(outDir, 'index.html'), html);
  // Remove assets of earlier builds (but never another build's temporary files).
  for (const name of readdirSync(assetsDir)) {
    if (!written.has(name) && !name.includes('.tmp-')) rmSync(join(assetsDir, name), { force: true });
  }
  const bytes = result.outputFiles.reduce((sum, f) => sum + f.contents.length, 0);
  return { outDir, js: url(js), css: url(css), bytes, ms: Math.round(performance.now() - started) };
}

/** The service worker (sw.js, one script), the PNG icons (scripts/render-icons.mjs) and the web app manifest. */
async function buildInstallable(outDir, { dev, manifest }) {
  const worker = await build({
    absWorkingDir: root,
    entryPoints: ['web/src/sw.ts'],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: ['chrome123', 'firefox120', 'safari17.5'],
    minify: !dev,
    legalComments: 'none',
    write: false,
    outfile: join(outDir, 'sw.js'),
    logLevel: 'warning',
  });
  for (const file of worker.outputFiles) writeAtomic(file.path, file.contents);
  if (manifest) writeAtomic(join(outDir, 'manifest.webmanifest'), readFileSync(join(webDir, 'manifest.webmanifest')));
  mkdirSync(join(outDir, 'icons'), { recursive: true });
  for (const name of readdirSync(join(webDir, 'icons'))) {
    if (name.endsWith('.png')) writeAtomic(join(outDir, 'icons', name), readFileSync(join(webDir, 'icons', name)));
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const info = await buildWeb({ dev: process.argv.includes('--dev') });
  console.log(`web: built ${relative(root, info.outDir)} (${Math.round(info.bytes / 1024)} KiB) in ${info.ms} ms`);
}
