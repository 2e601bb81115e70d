// Stylesheets are imported for their side effect: esbuild (scripts/build-web.mjs) bundles them into the page's CSS.
// The declaration tells the type-checker such an import is meant (TypeScript 7 checks side-effect imports).
declare module '*.css';
