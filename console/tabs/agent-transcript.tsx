/**
 * The agent's transcript as steps a person can open: each model call with
 * what it said, and each tool call with its input and the exact output the
 * model saw.
 */
import type { Schemas } from '../api.ts';
import { formatMs } from '../format.ts';

type Step = Schemas['AgentResponse']['transcript'][number];

function stepTitle(step: Step): string {
  if (step.kind === 'tool') return `Step ${step.step}: tool ${step.tool_name ?? '?'}`;
  const calls = step.tool_calls?.map((c) => c.name).join(', ');
  return `Step ${step.step}: model${calls ? ` → ${calls}` : ''}`;
}

function pretty(value: unknown): string {
  if (typeof value === 'string') {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2);
}

export function Transcript({ steps }: { steps: Step[] }) {
  return (
    <ol class="transcript" aria-label="Transcript">
      {steps.map((step) => (
        <li key={step.step}>
          <details>
            <summary>
              <span class={`badge badge-${step.kind === 'tool' ? 'info' : 'plain'}`}>{step.kind}</span> {stepTitle(step)} <span class="muted">{formatMs(step.duration_ms)}</span>
            </summary>
            {step.kind === 'tool' ? (
              <div class="step-body">
                <h4>Input</h4>
                <pre>{pretty(step.tool_input)}</pre>
                <h4>Output the model saw</h4>
                <pre>{step.tool_output ?? ''}</pre>
              </div>
            ) : (
              <div class="step-body">
                <pre>{step.content ?? '(no text: tool calls only)'}</pre>
              </div>
            )}
          </details>
        </li>
      ))}
    </ol>
  );
}
