// Entry point of the browser UI.
import { render } from 'preact';
import { init, switchSession } from './actions.ts';
import { getState } from './store.ts';
import { App } from './components/App.tsx';
import { followNotificationClicks, registerServiceWorker } from './push.ts';
import '../ui/ui.css';
import './styles.css';

render(<App />, document.getElementById('app')!);
// the service worker makes the app installable and shows push notifications (web/src/sw.ts); a
// notification's chat opens once the sessions are loaded
void init().then(() => followNotificationClicks((id) => void switchSession(id)));
void registerServiceWorker();

// Read-only access for debugging from the console and for benchmarks.
(window as unknown as { svcState: typeof getState }).svcState = getState;
