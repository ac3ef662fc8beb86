/**
 * Rows as a table, every value as the API sent it. With `onSort`, each
 * column header is a button that sorts by that column (ascending, then
 * descending, then unsorted) and says so through aria-sort.
 */
import type { Column } from '../api.ts';
import { cellText, isNumericType } from '../format.ts';
import type { SortDirection } from '../../src/vocabulary.ts';

export interface SortState {
  column: string;
  direction: SortDirection;
}

interface Props {
  columns: Column[];
  rows: unknown[][];
  caption: string;
  sort?: SortState | null;
  onSort?: (column: string) => void;
  /** The first row's number, for the row-number column. */
  firstRow?: number;
}

function ariaSort(sort: SortState | null | undefined, column: string): 'ascending' | 'descending' | 'none' {
  if (sort?.column !== column) return 'none';
  return sort.direction === 'asc' ? 'ascending' : 'descending';
}

export function DataTable({ columns, rows, caption, sort, onSort, firstRow = 1 }: Props) {
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col" class="rownum">#</th>
            {columns.map((column, i) => (
              <th scope="col" key={`${i}:${column.name}`} aria-sort={ariaSort(sort, column.name)} class={isNumericType(column.type) ? 'num' : undefined}>
                {onSort ? (
                  <button type="button" class="sort" onClick={() => onSort(column.name)} title={`Sort by ${column.name}`}>
                    {column.name}
                    <span class="sort-mark" aria-hidden="true">{sort?.column === column.name ? (sort.direction === 'asc' ? ' ▲' : ' ▼') : ''}</span>
                  </button>
                ) : (
                  column.name
                )}
                <span class="col-type">{column.type}</span>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, r) => (
            <tr key={r}>
              <td class="rownum">{firstRow + r}</td>
              {columns.map((column, c) => {
                const value = row[c];
                const numeric = isNumericType(column.type);
                const cls = value === null || value === undefined ? 'null' : numeric ? 'num' : undefined;
                return (
                  <td key={c} class={cls}>
                    {cellText(value)}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length === 0 ? <p class="muted empty">No rows.</p> : null}
    </div>
  );
}
