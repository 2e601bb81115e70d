// Renders the web app's PNG icons from web/favicon.svg with the system Chromium (playwright-core), once,
// by hand: the icons are committed, so the build needs no browser.
//
//   node scripts/render-icons.mjs        (SVC_CHROMIUM overrides /usr/bin/chromium)
//
// Writes web/icons/: icon-192.png and icon-512.png (the icon as it is, rounded corners transparent),
// icon-maskable-512.png (full-bleed background, the glyph inside the maskable safe zone: Android crops
// it to its own shape) and apple-touch-icon.png (180 px, full-bleed: iOS rounds it and would fill
// transparency with black).
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const favicon = readFileSync(join(root, 'web', 'favicon.svg'), 'utf8');
const background = /<rect[^>]*fill="([^"]+)"[^>]*\/>/.exec(favicon)?.[1];
if (!background) throw new Error('web/favicon.svg: no background <rect fill="…"/> found');
const glyph = favicon.replace(/^<svg[^>]*>/, '').replace(/<\/svg>\s*$/, '').replace(/<rect[^>]*\/>/, '');
/** The glyph on a full square of the background colour, scaled about the centre. */
const fullBleed = (scale) =>
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" fill="${background}"/><g transform="translate(16 16) scale(${scale}) translate(-16 -16)">${glyph}</g></svg>`;

const icons = [
  { name: 'icon-192.png', size: 192, svg: favicon },
  { name: 'icon-512.png', size: 512, svg: favicon },
  { name: 'icon-maskable-512.png', size: 512, svg: fullBleed(0.85) },
  { name: 'apple-touch-icon.png', size: 180, svg: fullBleed(0.95) },
];

const outDir = join(root, 'web', 'icons');
mkdirSync(outDir, { recursive: true });
const browser = await chromium.launch({ executablePath: process.env.SVC_CHROMIUM ?? '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
try {
  for (const { name, size, svg } of icons) {
    const page = await browser.newPage({ viewport: { width: size, height: size }, deviceScaleFactor: 1 });
    const src = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
    await page.setContent(`<style>html,body{margin:0;background:transparent}</style><img src="${src}" width="${size}" height="${size}" style="display:block">`);
    await page.waitForFunction(() => document.images[0]?.complete);
    await page.screenshot({ path: join(outDir, name), omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } });
    await page.close();
    console.log(`web/icons/${name} (${size} px)`);
  }
} finally {
  await browser.close();
}
