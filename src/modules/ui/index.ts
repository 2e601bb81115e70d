// The ui module: serves a built web app (the chat UI of web/, and later the dashboard's) with its
// Content-Security-Policy, or a page that says how to build it.
export { uiRoutes, webDistDir, dashboardDistDir, CONTENT_SECURITY_POLICY, type UiRouteDeps } from './ui.routes.ts';
