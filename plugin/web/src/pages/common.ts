// Pieces shared by the step-oriented pages (overview, input pipeline).
import { el } from '../dom';
import { DataTable, colIndex, cellText, num, cellValue } from '../datatable';
import { stackedColumns, seriesColors, Series } from '../charts';

// Why a column of FLOP figures that are all 0 is unknown rather than zero.
export const NO_FLOPS = 'Unknown: the profile records no FLOP counts for these ops, so the server reports 0 for all of them.';

export interface CardOptions {
  key?: string;       // the server property the value comes from (data-key, for tests and tooling)
  tooltip?: string;   // what the figure means
  unknown?: string;   // why the value is unknown; shown as "—" with this as its tooltip
  // The server's own value behind the shown text, and its unit (us, ms, s, B, MiB, %, fraction or '' for a plain
  // count): data-json / data-json-unit, so a test can check the shown text against /data without knowing the page.
  json?: number | string;
  jsonUnit?: string;
}

// Marks an element as showing the server value `json` (in `unit`).
export function markJson<T extends Element>(e: T, json: number | string | null | undefined, unit = ''): T {
  if (json === null || json === undefined || json === '') return e;
  e.setAttribute('data-json', String(json));
  e.setAttribute('data-json-unit', unit);
  return e;
}

// A figure with its label. An empty value is unknown: "—" with a tooltip saying why, never 0.
export function card(label: string, value: string, note = '', opts: CardOptions = {}): HTMLElement {
  const unknown = !value || opts.unknown !== undefined;
  const box = el('div', { class: unknown ? 'stat-card unknown' : 'stat-card', 'data-stat': label },
    el('div', { class: 'stat-label' }, label),
    el('div', { class: 'stat-value', ...(unknown ? { title: opts.unknown ?? 'The server did not report this figure.' } : {}) }, unknown ? '—' : value),
    note && !unknown ? el('div', { class: 'stat-note' }, note) : null);
  if (opts.key) box.setAttribute('data-key', opts.key);
  if (!unknown) markJson(box.querySelector('.stat-value')!, opts.json, opts.jsonUnit);
  if (opts.tooltip) box.title = opts.tooltip;
  return box;
}

export function cards(...items: HTMLElement[]): HTMLElement {
  return el('div', { class: 'stat-cards' }, ...items);
}

// Step-time breakdown columns to stack: the converter names them in
// p.step_time_graph_column_ids when it knows; otherwise every per-step ms column.
export function stepSeries(t: DataTable): { steps: string[]; series: Series[] } {
  const listed = (t.p?.step_time_graph_column_ids ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  let ids = listed.length ? listed : t.cols.map((c) => c.id);
  ids = ids.filter((id) => {
    const c = t.cols.find((x) => x.id === id);
    return c && c.type === 'number' && !/percent|^stepTimeMs$/i.test(id);
  });
  const stepCol = Math.max(0, t.cols.findIndex((c) => /^step(num|name)$/.test(c.id)));
  const steps = t.rows.map((_, r) => cellText(t, r, stepCol));
  const labels = ids.map((id) => t.cols[colIndex(t, id)].label || id);
  // A column is coloured by its id and label together ("infeed" ids with a "Input" label are one category).
  const colors = seriesColors(ids.map((id, i) => `${labels[i]} ${id}`));
  const series = ids.map((id, i) => {
    const c = colIndex(t, id);
    return { name: labels[i], id, color: colors[i], values: t.rows.map((_, r) => num(cellValue(t, r, c))) };
  });
  return { steps, series };
}

export function stepChart(t: DataTable, name: string): HTMLElement {
  const { steps, series } = stepSeries(t);
  if (steps.length === 0) return el('div', { class: 'msg msg-empty' }, 'No steps were found in this profile, so there is no step-time graph.');
  return stackedColumns(steps, series, { yLabel: 'milliseconds', name });
}
