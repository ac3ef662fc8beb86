/**
 * The parts of an artifact read a person chooses: which columns, and the
 * filters (column, op, value). Values are sent as typed text; the API checks
 * each against its column's type and answers VALIDATION_ERROR when it does
 * not fit, which the view then shows.
 */
import { useState } from 'preact/hooks';
import { FILTER_OPS, LIST_FILTER_OPS, VALUELESS_FILTER_OPS } from '../../src/vocabulary.ts';
import type { Column, Schemas } from '../api.ts';
import { Field } from './field.tsx';

export type Filter = Schemas['Filter'];

// Sets of plain strings: the op comes from a <select> whose options the artifact may narrow.
const NO_VALUE = new Set<string>(VALUELESS_FILTER_OPS);
const LIST_OPS = new Set<string>(LIST_FILTER_OPS);

/** The filter's value as the API wants it: none, a list (comma-separated), or one value. */
export function filterValue(op: string, text: string): Filter {
  if (NO_VALUE.has(op)) return { column: '', op };
  if (LIST_OPS.has(op)) return { column: '', op, value: text.split(',').map((v) => v.trim()) };
  return { column: '', op, value: text };
}

export function describeFilter(filter: Filter): string {
  if (filter.value === undefined) return `${filter.column} ${filter.op}`;
  const value = Array.isArray(filter.value) ? filter.value.join(', ') : String(filter.value);
  return `${filter.column} ${filter.op} ${value}`;
}

export function ColumnPicker({ columns, chosen, onChange }: { columns: Column[]; chosen: string[] | null; onChange: (next: string[] | null) => void }) {
  const selected = new Set(chosen ?? columns.map((c) => c.name));
  function toggle(name: string, on: boolean): void {
    const next = columns.map((c) => c.name).filter((n) => (n === name ? on : selected.has(n)));
    onChange(next.length === columns.length ? null : next);
  }
  return (
    <details class="picker">
      <summary>Columns ({selected.size}/{columns.length})</summary>
      <fieldset>
        <legend class="visually-hidden">Columns</legend>
        {columns.map((column, i) => (
          <label key={`${i}:${column.name}`} class="check">
            <input type="checkbox" checked={selected.has(column.name)} disabled={selected.size === 1 && selected.has(column.name)} onChange={(e) => toggle(column.name, e.currentTarget.checked)} />
            {column.name}
          </label>
        ))}
      </fieldset>
    </details>
  );
}

export function FilterForm({ columns, ops, onAdd }: { columns: Column[]; ops: string[] | null; onAdd: (filter: Filter) => void }) {
  const [picked, setColumn] = useState('');
  const [op, setOp] = useState('eq');
  const [value, setValue] = useState('');
  const choices = ops ?? FILTER_OPS;
  // The columns may arrive after the first render (the artifact's description), or change with the column choice.
  const column = columns.some((c) => c.name === picked) ? picked : (columns[0]?.name ?? '');
  return (
    <form
      class="filter-form"
      onSubmit={(e) => {
        e.preventDefault();
        onAdd({ ...filterValue(op, value), column });
        setValue('');
      }}
    >
      <Field label="Filter column">
        {(id) => (
          <select id={id} value={column} onChange={(e) => setColumn(e.currentTarget.value)}>
            {columns.map((c, i) => (
              <option key={`${i}:${c.name}`} value={c.name}>{c.name}</option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Operator">
        {(id) => (
          <select id={id} value={op} onChange={(e) => setOp(e.currentTarget.value)}>
            {choices.map((o) => (
              <option key={o} value={o}>{o}</option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Value">
        {(id) => <input id={id} value={value} disabled={NO_VALUE.has(op)} placeholder={LIST_OPS.has(op) ? 'a, b, …' : ''} onInput={(e) => setValue(e.currentTarget.value)} />}
      </Field>
      <button type="submit">Add filter</button>
    </form>
  );
}
