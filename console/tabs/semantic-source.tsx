/**
 * One source of a semantic query: an explore and the dimensions and metrics
 * picked from it, as checkboxes grouped by kind.
 */
import type { Explore } from '../api.ts';
import { Field } from '../components/field.tsx';
import { FIELD_KINDS } from '../../src/vocabulary.ts';

export interface SourcePick {
  explore: string;
  dimensions: string[];
  metrics: string[];
}

interface Props {
  legend: string;
  explores: Explore[];
  pick: SourcePick;
  onChange: (next: SourcePick) => void;
  /** Offers "none" first, for the optional second explore. */
  optional?: boolean;
}

function toggle(list: string[], id: string, on: boolean): string[] {
  return on ? [...list.filter((x) => x !== id), id] : list.filter((x) => x !== id);
}

export function SourcePicker({ legend, explores, pick, onChange, optional = false }: Props) {
  const explore = explores.find((e) => e.name === pick.explore);
  const fields = explore?.fields ?? [];
  return (
    <fieldset class="source">
      <legend>{legend}</legend>
      <Field label={optional ? 'Merge with' : 'Explore'}>
        {(id) => (
          <select id={id} value={pick.explore} onChange={(e) => onChange({ explore: e.currentTarget.value, dimensions: [], metrics: [] })}>
            {optional ? <option value="">(none)</option> : null}
            {explores.map((e) => (
              <option key={e.name} value={e.name}>
                {e.label ? `${e.label} (${e.name})` : e.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      {explore?.description ? <p class="muted">{explore.description}</p> : null}
      {explore !== undefined ? (
        <div class="field-lists">
          {FIELD_KINDS.map((kind) => (
            <div key={kind} class="field-list" role="group" aria-label={`${legend} ${kind === 'dimension' ? 'dimensions' : 'metrics'}`}>
              <h4>{kind === 'dimension' ? 'Dimensions' : 'Metrics'}</h4>
              {fields
                .filter((f) => f.kind === kind)
                .map((f) => {
                  const list = kind === 'dimension' ? pick.dimensions : pick.metrics;
                  return (
                    <label key={f.id} class="check" title={f.description ?? f.type}>
                      <input
                        type="checkbox"
                        checked={list.includes(f.id)}
                        onChange={(e) => {
                          const next = toggle(list, f.id, e.currentTarget.checked);
                          onChange(kind === 'dimension' ? { ...pick, dimensions: next } : { ...pick, metrics: next });
                        }}
                      />
                      {f.id}
                    </label>
                  );
                })}
            </div>
          ))}
        </div>
      ) : null}
    </fieldset>
  );
}
