/**
 * A labelled control whose accessible name is exactly its label: the label
 * points at the control by id instead of wrapping it, because a wrapping
 * label adds the control's value to the name ("Explore Sales" instead of
 * "Explore"), and tests and screen readers find controls by these names.
 */
import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';

interface Props {
  label: string;
  /** Renders the control with the id the label points at. */
  children: (id: string) => ComponentChildren;
  class?: string;
}

export function Field({ label, children, class: extra }: Props) {
  const id = useId();
  return (
    <div class={extra ? `field ${extra}` : 'field'}>
      <label for={id}>{label}</label>
      {children(id)}
    </div>
  );
}
