// The ui module: serves a built web app (the chat UI of web/, and the dashboard's) with its
// Content-Security-Policy, or a page that says how to build it.
export { uiRoutes, type UiRouteDeps } from './ui.routes.ts';
export { uiFiles, webDistDir, dashboardDistDir, CONTENT_SECURITY_POLICY, type UiFiles } from './files.ts';
