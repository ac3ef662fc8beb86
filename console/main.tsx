/**
 * The console's entry point, bundled by esbuild (with styles.css) into the
 * script and stylesheet /console serves.
 */
import { render } from 'preact';
import { App } from './app.tsx';
import { ErrorBoundary } from './components/error-boundary.tsx';
import './styles.css';

const root = document.getElementById('app');
if (root !== null) render(
    <ErrorBoundary>
      <App />
    </ErrorBoundary>,
    root,
  );
