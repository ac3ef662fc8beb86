/**
 * The Semantic tab: pick an explore's dimensions and metrics (and, to merge,
 * a second explore and which of its dimensions each key joins), run the
 * intent, and save it as a visualization, whose chart the server draws as
 * SVG; the picture is fetched with the token and shown from a blob: URL.
 * Below, the visualizations saved so far, each of which can be deleted.
 */
import { useEffect, useState } from 'preact/hooks';
import { unwrap, type Explore, type Schemas, type SluiceClient } from '../api.ts';
import { CompletenessBadges } from '../components/badges.tsx';
import { DataTable } from '../components/data-table.tsx';
import { ErrorBanner } from '../components/error-banner.tsx';
import { Field } from '../components/field.tsx';
import { CHART_TYPES, type ChartType } from '../../src/vocabulary.ts';
import { SourcePicker, type SourcePick } from './semantic-source.tsx';
import { VisualizationsList } from './visualizations-list.tsx';

type Intent = Schemas['SemanticQueryIntent'];
type Result = Pick<Schemas['SemanticQueryEnvelope'], 'summary' | 'data'>;

const EMPTY: SourcePick = { explore: '', dimensions: [], metrics: [] };

function buildIntent(first: SourcePick, second: SourcePick, joins: Record<string, string>): Intent {
  const source = (p: SourcePick) => ({ explore: p.explore, dimensions: p.dimensions, metrics: p.metrics });
  if (second.explore === '') return { type: 'metric', query: source(first) };
  return {
    type: 'merge',
    query: {
      sources: [source(first), source(second)],
      joinOn: first.dimensions.map((left) => ({ left, right: joins[left] ?? '' })),
      joinType: 'left',
    },
  };
}

export function SemanticTab({ client }: { client: SluiceClient }) {
  const [explores, setExplores] = useState<Explore[]>([]);
  const [first, setFirst] = useState<SourcePick>(EMPTY);
  const [second, setSecond] = useState<SourcePick>(EMPTY);
  const [joins, setJoins] = useState<Record<string, string>>({});
  const [chartType, setChartType] = useState<ChartType>('bar');
  const [title, setTitle] = useState('');
  const [result, setResult] = useState<Result | null>(null);
  const [saved, setSaved] = useState<{ id: string; svgUrl: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    unwrap(client.listExplores({}))
      .then((r) => {
        setExplores(r.data.explores);
        setFirst({ ...EMPTY, explore: r.data.explores[0]?.name ?? '' });
      })
      .catch(setError);
  }, [client]);

  // The chart's blob: URL is released when it is replaced.
  useEffect(() => () => { if (saved !== null) URL.revokeObjectURL(saved.svgUrl); }, [saved]);

  const secondDimensions = explores.find((e) => e.name === second.explore)?.fields.filter((f) => f.kind === 'dimension') ?? [];

  async function act(what: () => Promise<void>): Promise<void> {
    setBusy(true);
    setError(null);
    try {
      await what();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  const run = () =>
    act(async () => {
      setResult(await unwrap(client.runSemanticQuery({ body: { intent: buildIntent(first, second, joins) } })));
    });

  const save = () =>
    act(async () => {
      const x = first.dimensions[0];
      const chart = { type: chartType, ...(x !== undefined ? { x } : {}) };
      const viz = await unwrap(client.createVisualization({ body: { intent: buildIntent(first, second, joins), chart, ...(title ? { title } : {}) } }));
      const { data, response } = await client.renderVisualization({ params: { path: { id: viz.data.id } }, parseAs: 'blob' });
      if (!response.ok || !(data instanceof Blob)) throw new Error(`The chart could not be drawn (HTTP ${response.status}).`);
      setSaved({ id: viz.data.id, svgUrl: URL.createObjectURL(data) });
    });

  return (
    <div class="tab-body">
      <form
        class="semantic-form"
        onSubmit={(e) => {
          e.preventDefault();
          void run();
        }}
      >
        <div class="sources">
          <SourcePicker legend="First explore" explores={explores} pick={first} onChange={(p) => { setFirst(p); setJoins({}); }} />
          <SourcePicker legend="Second explore" explores={explores} pick={second} onChange={(p) => { setSecond(p); setJoins({}); }} optional />
        </div>
        {second.explore !== '' && first.dimensions.length > 0 ? (
          <fieldset class="joins">
            <legend>Join on</legend>
            {first.dimensions.map((left) => (
              <Field key={left} label={`Join ${left} with`}>
                {(id) => (
                  <select id={id} value={joins[left] ?? ''} onChange={(e) => setJoins({ ...joins, [left]: e.currentTarget.value })}>
                    <option value="">(choose)</option>
                    {secondDimensions.map((d) => (
                      <option key={d.id} value={d.id}>{d.id}</option>
                    ))}
                  </select>
                )}
              </Field>
            ))}
          </fieldset>
        ) : null}
        <div class="form-row">
          <button type="submit" class="primary" disabled={busy}>Run</button>
          <Field label="Chart">
            {(id) => (
              <select id={id} value={chartType} onChange={(e) => setChartType(e.currentTarget.value as ChartType)}>
                {CHART_TYPES.map((t) => (
                  <option key={t} value={t}>{t}</option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Title">{(id) => <input id={id} value={title} onInput={(e) => setTitle(e.currentTarget.value)} />}</Field>
          <button type="button" disabled={busy} onClick={() => void save()}>Save visualization</button>
        </div>
      </form>
      <ErrorBanner error={error} />
      <div class="semantic-output">
        {result !== null ? (
          <section class="result" aria-label="Result">
            <p class="summary">{result.summary}</p>
            <CompletenessBadges completeness={result.data.completeness} artifact={result.data.artifact} />
            <DataTable columns={result.data.preview.columns} rows={result.data.preview.rows} caption="Semantic result" />
          </section>
        ) : null}
        {saved !== null ? (
          <figure class="chart">
            <img src={saved.svgUrl} alt={`Chart of visualization ${saved.id}`} />
            <figcaption class="muted">Saved as visualization <code>{saved.id}</code>; drawn by the server.</figcaption>
          </figure>
        ) : null}
      </div>
      <VisualizationsList client={client} savedId={saved?.id ?? null} />
    </div>
  );
}
