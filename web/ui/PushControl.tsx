// Settings › Notifications (the chat UI's, and the dashboard's for the hub): turns push notifications on
// or off for this device, says why it cannot when the page is not a secure context, and sends a test.
import { useEffect, useState } from 'preact/hooks';
import { Button } from './components.tsx';
import type { PushDevice } from './push.ts';

type Toast = (text: string, tone: 'info' | 'error') => void;

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export function PushControl({ device, toast }: { device: PushDevice; toast: Toast }) {
  const unavailable = device.unavailable();
  const [on, setOn] = useState<boolean | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (unavailable) return;
    void device.isOn().then(setOn, () => setOn(false));
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
      void device.isOn().then(setOn, () => setOn(false));
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
    <div class="push-control" data-push={on ? 'on' : 'off'}>
      <p>{on ? 'This device gets notifications.' : 'This device gets no notifications.'}</p>
      {on ? (
        <>
          <Button type="button" small disabled={busy} onClick={act(device.disable, 'Notifications are off on this device.')}>
            Turn off on this device
          </Button>
          <Button type="button" small variant="ghost" disabled={busy} onClick={act(device.test, 'A test notification was sent.')}>
            Send a test
          </Button>
        </>
      ) : (
        <Button type="button" small variant="primary" disabled={busy || on === null} onClick={act(device.enable, 'Notifications are on for this device.')}>
          Turn on for this device
        </Button>
      )}
    </div>
  );
}
