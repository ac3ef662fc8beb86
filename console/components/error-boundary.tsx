/**
 * The last line against a blank page: a rendering failure anywhere below
 * shows its message and a way back, instead of an empty screen.
 */
import { Component, type ComponentChildren } from 'preact';

interface State {
  error: Error | null;
}

export class ErrorBoundary extends Component<{ children: ComponentChildren }, State> {
  override state: State = { error: null };

  override componentDidCatch(error: unknown): void {
    this.setState({ error: error instanceof Error ? error : new Error(String(error)) });
  }

  override render() {
    if (this.state.error === null) return this.props.children;
    return (
      <div class="error" role="alert">
        <span class="error-text">The console failed: {this.state.error.message}</span>
        <button type="button" onClick={() => this.setState({ error: null })}>
          Try again
        </button>
      </div>
    );
  }
}
