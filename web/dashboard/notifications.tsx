// Notifications on this device, from the hub: a tool call held in any instance (a local one or one on a
// machine of the fleet) rings this phone or browser, with Allow and Deny (POST /api/push/…, the same
// API and service worker as an instance's own, modules/dashboard/hub-push.ts on the server).
import { Card } from '../ui/components.tsx';
import { PushControl } from '../ui/PushControl.tsx';
import { pushDevice } from '../ui/push.ts';
import { api } from './api.ts';
import { toast } from './feedback.tsx';

const hubPush = pushDevice({
  get: (path) => api(path),
  post: (path, body = {}) => api(path, { method: 'POST', body }),
  del: (path) => api(path, { method: 'DELETE' }),
});

export function Notifications() {
  return (
    <Card title="Notifications on this device" titleId="notifications-title" class="notifications">
      <p class="muted">When a tool call in any instance waits for a person, this device is told, with Allow and Deny on the notification.</p>
      <PushControl device={hubPush} toast={toast} />
    </Card>
  );
}
