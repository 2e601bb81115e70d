// The events module: the public event channel (SSE /api/events and the /ws fallback) over the
// event stream of src/events.
export { eventRoutes, type EventRouteDeps } from './events.routes.ts';
