// Pieces shared by the XLA op pages (hlo_stats, op_profile, roofline_model)
// and the links between them and from the trace viewer.
import { el } from '../dom';
import { fmtNum } from '../format';
import { DataTable, cellValue } from '../datatable';
import { fetchJson, dataUrl } from '../api';
import { GridColumn } from '../table';
import { Selection } from '../api';

// What the UI shows for a figure the server left empty (it could not be computed).
export const UNKNOWN = '—';

export function numOrNull(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
}

// A number as the tables show it; null (empty cell) is unknown, not zero. Below 1 (a sub-µs time) it keeps three
// significant digits, so that 0.0177 µs does not read as 0.02.
export function fmtKnown(v: number | null, digits = 2): string {
  if (v === null) return UNKNOWN;
  if (v !== 0 && Math.abs(v) < 1) return v.toLocaleString('en-US', { maximumSignificantDigits: Math.max(3, digits) });
  return fmtNum(v, digits);
}

// Grid columns straight from a DataTable, with "—" for empty cells and
// optional per-column renderers (links). `fractionCols` hold fractions that
// the column labels call percentages (the roofline table's), shown ×100 with %.
export function columnsOf(t: DataTable, opts: { hide?: string[]; fractionCols?: string[]; render?: Record<string, (row: number) => Node | string> } = {}): GridColumn<number>[] {
  const hide = new Set(opts.hide ?? []);
  const fractions = new Set(opts.fractionCols ?? []);
  const out: GridColumn<number>[] = [];
  t.cols.forEach((c, i) => {
    if (hide.has(c.id)) return;
    const numeric = c.type === 'number';
    const custom = opts.render?.[c.id];
    out.push({
      id: c.id, label: c.label || c.id, numeric,
      value: (r) => cellValue(t, r, i),
      render: custom ?? ((r) => {
        const v = cellValue(t, r, i);
        if (numeric && fractions.has(c.id)) { const f = numOrNull(v); return f === null ? UNKNOWN : `${fmtNum(f * 100, 2)}%`; }
        if (numeric) return fmtKnown(numOrNull(v));
        if (typeof v === 'boolean') return v ? 'Yes' : 'No';
        return v === null || v === undefined || v === '' ? UNKNOWN : String(v);
      }),
    });
  });
  return out;
}

// Distinct non-empty values in first-seen order.
export function distinct(values: string[]): string[] {
  return Array.from(new Set(values.filter((v) => v !== '')));
}

export function selectOf(id: string, label: string, values: string[], allLabel: string): HTMLSelectElement {
  const s = el('select', { id, 'aria-label': label }, el('option', { value: '' }, allLabel));
  for (const v of values) s.appendChild(el('option', { value: v }, v));
  return s;
}

// A same-page URL that opens another XLA tool of the run on an op. The pages
// read `op` (the HLO instruction name) and `program` (its program id).
export function xlaToolHref(sel: { run: string; host: string }, tool: 'hlo_stats' | 'op_profile' | 'roofline_model',
                            op: string, program?: string): string {
  const q = new URLSearchParams({ run: sel.run, tool, host: sel.host, op });
  if (program) q.set('program', program);
  return `${location.pathname}?${q.toString()}`;
}

// A same-page URL that opens the Graph Viewer centred on an HLO node. The
// program id names the program exactly; a module name alone may belong to
// several programs, and the graph page then offers them instead of picking one.
export function graphViewerHref(sel: { run: string; host: string }, node: string, where: { program?: string; module?: string }): string {
  const q = new URLSearchParams({ run: sel.run, tool: 'graph_viewer', host: sel.host, node_name: node });
  if (where.module) q.set('module_name', where.module);
  if (where.program) q.set('program_id', where.program);
  return `${location.pathname}?${q.toString()}`;
}

// The small "graph" link the op tables put next to an op name. Its word is
// drawn by CSS, so a cell's text stays the op name (copying, sorting, tests).
export function graphLink(sel: { run: string; host: string }, node: string, program: string): HTMLElement {
  return el('a', { class: 'graph-link', href: graphViewerHref(sel, node, { program }), title: `Show ${node} in the Graph Viewer`,
    'aria-label': `${node} in the Graph Viewer`, 'data-graph-op': node, 'data-graph-program': program });
}

export function opFromUrl(): { op: string; program: string } {
  const q = new URLSearchParams(location.search);
  return { op: q.get('op') ?? '', program: q.get('program') ?? '' };
}

// The links a trace event gets when its args name an HLO op: GPU kernels carry
// hlo_op and hlo_module (and sometimes program_id); TPU `XLA Ops` events are
// named after the op and carry hlo_category, their module being the event of
// the `XLA Modules` line above them (`moduleOnLine`). The Graph Viewer link is
// offered when the run has that tool. Null when the event names no op.
export function hloLinksForEvent(name: string, args: Record<string, unknown> | undefined,
                                 opts: { moduleOnLine?: string; hasGraphs?: boolean } = {}): HTMLElement | null {
  const a = args ?? {};
  const hloOp = typeof a.hlo_op === 'string' ? a.hlo_op : '';
  const program = a.program_id !== undefined ? String(a.program_id) : '';
  const op = hloOp || (typeof a.hlo_category === 'string' ? name : '');
  if (!op) return null;
  const module = (typeof a.hlo_module === 'string' ? a.hlo_module : '') || (opts.moduleOnLine ?? '');
  const q = new URLSearchParams(location.search);
  const sel: Pick<Selection, 'run' | 'host'> = { run: q.get('run') ?? '', host: q.get('host') ?? '' };
  const link = (tool: 'hlo_stats' | 'op_profile', text: string) =>
    el('a', { class: 'xla-link', href: xlaToolHref(sel, tool, op, program), 'data-xla-link': tool }, text);
  const graph = opts.hasGraphs && el('a', { class: 'xla-link', href: graphViewerHref(sel, op, { module, program }), 'data-xla-link': 'graph_viewer',
    title: module ? `${op} in module ${module}` : `${op} (its module is not recorded: the graph page lists the modules that have it)` }, 'Open in Graph Viewer');
  return el('div', { class: 'xla-links' }, el('h3', {}, `HLO op ${op}${module ? ` · module ${module}` : ''}`),
    el('div', { class: 'toolbar' }, link('hlo_stats', 'Open in HLO Op Stats'), link('op_profile', 'Open in HLO Op Profile'), graph || null));
}

// The program this run spends the most device time in (the sum of its ops' self time in hlo_stats), its module_list
// entry and its op with the most self time: where graph_viewer and memory_viewer open when no link says otherwise.
// null when hlo_stats has no timed op (then the pages keep module_list's order).
export interface BusiestProgram { programId: string; module: string | undefined; op: string }
export async function busiestProgram(sel: Selection, modules: string[], signal: AbortSignal): Promise<BusiestProgram | null> {
  let data: unknown;
  try { data = await fetchJson(dataUrl({ ...sel, tool: 'hlo_stats' }), signal); } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    return null;
  }
  const t = (Array.isArray(data) ? data : [data]).find((x): x is DataTable => !!x && Array.isArray((x as DataTable).cols)) ?? null;
  if (!t) return null;
  const col = (id: string) => t.cols.findIndex((c) => c.id === id);
  const [pi, oi, si] = [col('program_id'), col('hlo_op_name'), col('total_self_time')];
  if (pi < 0 || oi < 0 || si < 0) return null;
  const perProgram = new Map<string, { time: number; op: string; opTime: number }>();
  t.rows.forEach((_, r) => {
    const id = String(cellValue(t, r, pi) ?? ''), self = Number(cellValue(t, r, si) ?? 0);
    if (!id || !(self > 0)) return;
    const p = perProgram.get(id) ?? { time: 0, op: '', opTime: -1 };
    p.time += self;
    if (self > p.opTime) { p.op = String(cellValue(t, r, oi) ?? ''); p.opTime = self; }
    perProgram.set(id, p);
  });
  let best: [string, { time: number; op: string }] | null = null;
  for (const entry of perProgram) if (!best || entry[1].time > best[1].time) best = entry;
  if (!best) return null;
  return { programId: best[0], module: modules.find((m) => m.endsWith(`(${best![0]})`)), op: best[1].op };
}
