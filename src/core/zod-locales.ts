// What the bundle gives zod instead of its index of 40 locales (scripts/build.mjs): English only,
// which is what svc's messages are in. Under tsx (tests) zod's own index is used.
export { default as en } from 'zod/v4/locales/en.js';
