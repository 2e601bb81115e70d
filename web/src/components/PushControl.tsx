// Settings › Notifications: turns push notifications on or off for this device, says why it cannot
// when the page is not a secure context, and sends a test.
import { useEffect, useState } from 'preact/hooks';
import { Button } from '../../ui/components.tsx';
import { errorText } from '../api.ts';
import { disablePush, enablePush, pushIsOn, pushTest, pushUnavailable } from '../push.ts';
import { toast } from '../store.ts';

export function PushControl() {
  const unavailable = pushUnavailable();
  const [on, setOn] = useState<boolean | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (unavailable) return;
    void pushIsOn().then(setOn, () => setOn(false));
  }, []);
  const act = (work: () => Promise<unknown>, done: string) => async () => {
    setBusy(true);
    try {
      await work();
      toast(done, 'info');
    } catch (err) {
      toast(errorText(err), 'error');
    } finally {
      setBusy(false);
      void pushIsOn().then(setOn, () => setOn(false));
    }
  };
  if (unavailable) {
    return (
      <p class="form-error" role="status" data-push="unavailable">
        {unavailable}
      </p>
    );
  }
  return (
    <div class="setting-actions" data-push={on ? 'on' : 'off'}>
      <p class="section-help">{on ? 'This device gets notifications.' : 'This device gets no notifications.'}</p>
      {on ? (
        <>
          <Button type="button" small disabled={busy} onClick={act(disablePush, 'Notifications are off on this device.')}>
            Turn off on this device
          </Button>
          <Button type="button" small variant="ghost" disabled={busy} onClick={act(pushTest, 'A test notification was sent.')}>
            Send a test
          </Button>
        </>
      ) : (
        <Button type="button" small variant="primary" disabled={busy || on === null} onClick={act(enablePush, 'Notifications are on for this device.')}>
          Turn on for this device
        </Button>
      )}
    </div>
  );
}
