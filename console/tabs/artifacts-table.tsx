/**
 * The artifacts listed in the Artifacts tab: id and SQL, rows, size,
 * session, expiry, a tick box (to copy to another session), Open and Delete.
 */
import type { Artifact } from '../api.ts';
import { formatBytes, formatCount } from '../format.ts';

interface Props {
  artifacts: Artifact[];
  opened: string | null;
  ticked: ReadonlySet<string>;
  onTick: (id: string, on: boolean) => void;
  onOpen: (id: string) => void;
  onDelete: (id: string) => void;
}

export function ArtifactsTable({ artifacts, opened, ticked, onTick, onOpen, onDelete }: Props) {
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">Artifacts</caption>
        <thead>
          <tr>
            <th scope="col"><span class="visually-hidden">Select</span></th>
            <th scope="col">Artifact</th>
            <th scope="col" class="num">Rows</th>
            <th scope="col" class="num">Size</th>
            <th scope="col" class="wide-only">Session</th>
            <th scope="col" class="wide-only">Expires</th>
            <th scope="col"><span class="visually-hidden">Actions</span></th>
          </tr>
        </thead>
        <tbody>
          {artifacts.map((a) => (
            <tr key={a.id} class={a.id === opened ? 'selected' : undefined}>
              <td>
                <input type="checkbox" aria-label={`Select ${a.id}`} checked={ticked.has(a.id)} onChange={(e) => onTick(a.id, e.currentTarget.checked)} />
              </td>
              <td>
                <code>{a.id}</code>
                <div class="sql-snippet" title={a.sql}>{a.sql}</div>
              </td>
              <td class="num">{formatCount(a.rowCount)}{a.coverage === 'PREFIX' ? ' (prefix)' : ''}</td>
              <td class="num">{formatBytes(a.sizeBytes)}</td>
              <td class="wide-only">{a.sessionId}</td>
              <td class="nowrap wide-only">{a.expiresAt}</td>
              <td class="actions">
                <button type="button" aria-label={`Open ${a.id}`} onClick={() => onOpen(a.id)}>Open</button>
                <button type="button" class="danger" aria-label={`Delete ${a.id}`} onClick={() => onDelete(a.id)}>Delete</button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {artifacts.length === 0 ? <p class="muted empty">No artifacts yet: a query whose preview is not the whole result makes one.</p> : null}
    </div>
  );
}
