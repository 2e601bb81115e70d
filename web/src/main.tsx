// Entry point of the browser UI.
import { render } from 'preact';
import { init } from './actions.ts';
import { getState } from './store.ts';
import { App } from './components/App.tsx';
import '../ui/ui.css';
import './styles.css';

render(<App />, document.getElementById('app')!);
void init();

// Read-only access for debugging from the console and for benchmarks.
(window as unknown as { svcState: typeof getState }).svcState = getState;
