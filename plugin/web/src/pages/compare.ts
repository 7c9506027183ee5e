// Compare two runs: run B (the run the user came from) against a baseline
// run A chosen here, from the server's compare tool. Every figure is the
// server's; a figure one run cannot give is "—" and has no delta.
import { apiUrl, fetchJson } from '../api';
import { el, clear, message, section, svg } from '../dom';
import { DataGrid, GridColumn } from '../table';
import { PALETTE } from '../charts';
import { fmtNum, middleEllipsis } from '../format';

type Fig = number | null;
interface Metric { name: string; a: Fig; b: Fig; delta: Fig; delta_percent: Fig }
interface OpRow {
  name: string; type: string; where: string; presence: 'both' | 'added' | 'removed' | 'unknown';
  occurrences_a: Fig; occurrences_b: Fig; time_us_a: Fig; time_us_b: Fig; delta_us: Fig; delta_percent: Fig;
  self_time_us_a?: Fig; self_time_us_b?: Fig; self_delta_us?: Fig; tensor_core_share_a?: Fig; tensor_core_share_b?: Fig;
}
interface StepPair { metrics: Metric[]; number_a: Fig; number_b: Fig; name_a: string | null; name_b: string | null }
interface TfDataSide { input_bound: boolean; iterator: string; bottleneck_type: string; latency_us: Fig }
export interface Comparison {
  run_a: string; run_b: string; alignment: string; steps: Metric[]; step_pairs: StepPair[]; input_stages: Metric[];
  input_classification: { a: string | null; b: string | null }; tf_data: { a: TfDataSide | null; b: TfDataSide | null };
  framework_ops: OpRow[]; hlo_ops: OpRow[]; kernels: OpRow[]; memory: Metric[];
  step_notes?: { a: string | null; b: string | null };
  step?: { a: number | null; b: number | null }; step_events?: OpRow[];
}

// host / base_host: a host of the run, or one span of a PyTorch worker (a trace file); '' combines them all.
// step / base_step: a step whose host events to compare as well (HTA's trace diff of one iteration).
export interface CompareParams {
  run: string; host: string; base_run: string; base_host: string; align: string; step?: string; base_step?: string;
  tool?: string;  // the tool the user came from: the top bar keeps showing it, "Back" returns to it
}

const UNKNOWN = '—';
const UNKNOWN_TIP = 'This run cannot give this figure, so there is no delta.';
const COLOR_A = PALETTE[0], COLOR_B = PALETTE[1];
const STEP_LABELS: Record<string, string> = {
  step_time_ms: 'Step time', input_ms: 'Input', host_compute_ms: 'Host compute', device_compute_ms: 'Device compute',
  kernel_launch_ms: 'Kernel launch', device_collectives_ms: 'Device collectives', device_to_device_ms: 'Device to device',
  output_ms: 'Output', compile_ms: 'Compilation', other_ms: 'All others', steps: 'Steps',
  tc_compute_ms: 'TensorCore compute', scv0_compute_ms: 'SparseCoreV0 compute', tc_infeed_ms: 'TensorCore input',
  tc_outfeed_ms: 'TensorCore output', scv0_infeed_ms: 'SparseCoreV0 input', tc_idle_ms: 'TensorCore idle',
  host_transfer_ms: 'Host transfer',
};

function num(v: Fig, digits = 3): Node | string {
  return v === null ? el('span', { class: 'unknown', title: UNKNOWN_TIP }, UNKNOWN) : fmtNum(v, digits);
}
function signed(v: Fig, digits = 3, unit = ''): Node | string {
  if (v === null) return el('span', { class: 'unknown', title: UNKNOWN_TIP }, UNKNOWN);
  const text = `${v > 0 ? '+' : ''}${fmtNum(v, digits)}${unit}`;
  return el('span', { class: v > 0 ? 'delta-up' : v < 0 ? 'delta-down' : 'delta-zero' }, text);
}

function metricTable(rows: Metric[], label: (name: string) => string, name: string): HTMLElement {
  const cols: GridColumn<Metric>[] = [
    { id: 'name', label: '', value: (r) => label(r.name) },
    { id: 'a', label: 'A', numeric: true, value: (r) => r.a, render: (r) => num(r.a) },
    { id: 'b', label: 'B', numeric: true, value: (r) => r.b, render: (r) => num(r.b) },
    { id: 'delta', label: 'Δ (B − A)', numeric: true, value: (r) => r.delta, render: (r) => signed(r.delta) },
    { id: 'delta_percent', label: 'Δ %', numeric: true, value: (r) => r.delta_percent, render: (r) => signed(r.delta_percent, 1, '%') },
  ];
  return new DataGrid(cols, rows, { name, pageSize: 200 }).root;
}

// The step breakdown as paired bars: A above B for each category, on one scale.
function pairedBars(rows: Metric[]): HTMLElement {
  const items = rows.filter((r) => r.name !== 'steps');
  const rowH = 34, width = 960, labelW = 200, right = 120;
  const max = Math.max(0, ...items.flatMap((r) => [r.a ?? 0, r.b ?? 0])) || 1;
  const root = svg('svg', { viewBox: `0 0 ${width} ${items.length * rowH + 30}`, class: 'chart', role: 'img', 'data-chart': 'paired-steps' });
  items.forEach((r, i) => {
    const y = 24 + i * rowH;
    root.appendChild(svg('text', { x: labelW - 6, y: y + 17, 'text-anchor': 'end', class: 'axis' }, STEP_LABELS[r.name] ?? r.name));
    ([['A', r.a, COLOR_A, 0], ['B', r.b, COLOR_B, 14]] as const).forEach(([side, v, color, dy]) => {
      const w = v === null ? 0 : ((width - labelW - right) * v) / max;
      root.appendChild(svg('rect', { x: labelW, y: y + dy, width: Math.max(v === null ? 0 : 1, w), height: 12, fill: color, class: 'bar', 'data-side': side },
        svg('title', {}, `${side}: ${v === null ? UNKNOWN : fmtNum(v, 3) + ' ms'}`)));
      root.appendChild(svg('text', { x: labelW + w + 6, y: y + dy + 10, class: 'axis' }, `${side} ${v === null ? UNKNOWN : fmtNum(v, 3) + ' ms'}`));
    });
  });
  // The legend's squares are shapes of the bars' colours (the axis class greys text, fill and all).
  ([['A', 'A (baseline)', COLOR_A, 0], ['B', 'B', COLOR_B, 130]] as const).forEach(([side, text, color, dx]) => {
    root.appendChild(svg('rect', { x: labelW + dx, y: 5, width: 10, height: 10, fill: color, class: 'legend-swatch', 'data-side': side }));
    root.appendChild(svg('text', { x: labelW + dx + 14, y: 14, class: 'axis' }, text));
  });
  return el('figure', { class: 'chart-box' }, root as unknown as Node);
}

// The largest changes of a table, slower to the right and faster to the left of zero.
function topMovers(rows: OpRow[], count = 15): HTMLElement {
  const movers = rows.filter((r) => r.delta_us !== null).slice(0, count);
  // Room beside each half for the value label, so a long bar's label does not run into the names.
  const rowH = 22, width = 960, labelW = 380, mid = labelW + (width - labelW) / 2, half = (width - labelW) / 2 - 100;
  const max = Math.max(0, ...movers.map((r) => Math.abs(r.delta_us as number))) || 1;
  const root = svg('svg', { viewBox: `0 0 ${width} ${movers.length * rowH + 10}`, class: 'chart', role: 'img', 'data-chart': 'top-movers' });
  movers.forEach((r, i) => {
    const d = r.delta_us as number, y = 5 + i * rowH, w = (half * Math.abs(d)) / max;
    root.appendChild(svg('text', { x: labelW - 6, y: y + 15, 'text-anchor': 'end', class: 'axis' }, middleEllipsis(r.name, 52), svg('title', {}, r.name)));
    root.appendChild(svg('rect', { x: d >= 0 ? mid : mid - w, y: y + 3, width: Math.max(1, w), height: rowH - 6, fill: d > 0 ? '#d62728' : '#2ca02c', class: 'bar' },
      svg('title', {}, `${r.name}: ${d > 0 ? '+' : ''}${fmtNum(d, 1)} µs (${r.presence})`)));
    root.appendChild(svg('text', { x: d >= 0 ? mid + w + 4 : mid - w - 4, y: y + 15, 'text-anchor': d >= 0 ? 'start' : 'end', class: 'axis' },
      `${d > 0 ? '+' : ''}${fmtNum(d, 1)} µs`));
  });
  root.appendChild(svg('line', { x1: mid, x2: mid, y1: 0, y2: movers.length * rowH + 10, class: 'axis-line', stroke: '#888' }));
  return el('figure', { class: 'chart-box' }, root as unknown as Node);
}

function opTable(rows: OpRow[], kind: 'ops' | 'kernels', name: string): HTMLElement {
  const cols: GridColumn<OpRow>[] = [
    { id: 'name', label: kind === 'kernels' ? 'Kernel' : 'Op', value: (r) => r.name, longText: true },
  ];
  if (kind === 'ops') cols.push({ id: 'type', label: 'Type', value: (r) => (r.where && r.type ? `${r.where}: ${r.type}` : r.where || r.type) });
  cols.push(
    { id: 'presence', label: 'In', value: (r) => r.presence },
    { id: 'time_us_a', label: 'A time (µs)', numeric: true, value: (r) => r.time_us_a, render: (r) => num(r.time_us_a, 1) },
    { id: 'time_us_b', label: 'B time (µs)', numeric: true, value: (r) => r.time_us_b, render: (r) => num(r.time_us_b, 1) },
    { id: 'delta_us', label: 'Δ (µs)', numeric: true, value: (r) => (r.delta_us === null ? null : Math.abs(r.delta_us)), render: (r) => signed(r.delta_us, 1) },
    { id: 'delta_percent', label: 'Δ %', numeric: true, value: (r) => r.delta_percent, render: (r) => signed(r.delta_percent, 1, '%') },
    { id: 'occurrences_a', label: 'A count', numeric: true, value: (r) => r.occurrences_a, render: (r) => num(r.occurrences_a, 0) },
    { id: 'occurrences_b', label: 'B count', numeric: true, value: (r) => r.occurrences_b, render: (r) => num(r.occurrences_b, 0) },
  );
  if (kind === 'ops') {
    cols.push({ id: 'self_delta_us', label: 'Self Δ (µs)', numeric: true, value: (r) => r.self_delta_us ?? null, render: (r) => signed(r.self_delta_us ?? null, 1) });
  } else {
    const share = (v: Fig | undefined) => (v === null || v === undefined ? el('span', { class: 'unknown', title: UNKNOWN_TIP }, UNKNOWN) : `${(v * 100).toFixed(0)}%`);
    cols.push({ id: 'tc_a', label: 'A TensorCore', numeric: true, value: (r) => r.tensor_core_share_a ?? null, render: (r) => share(r.tensor_core_share_a) },
      { id: 'tc_b', label: 'B TensorCore', numeric: true, value: (r) => r.tensor_core_share_b ?? null, render: (r) => share(r.tensor_core_share_b) });
  }
  return new DataGrid(cols, rows, { name, columnFilters: kind === 'ops' ? ['name', 'type', 'presence'] : ['name', 'presence'],
    initialSort: { id: 'delta_us', desc: true } }).root;
}

function tfDataText(s: TfDataSide | null): string {
  if (!s) return UNKNOWN;
  if (!s.iterator) return s.input_bound ? 'input bound; no bottleneck iterator found' : 'no bottleneck found';
  return `${s.iterator} (${s.bottleneck_type}${s.latency_us === null ? '' : `, ${fmtNum(s.latency_us, 1)} µs`})`;
}

function opSection(title: string, rows: OpRow[], kind: 'ops' | 'kernels', name: string): HTMLElement | null {
  if (rows.length === 0) return null;
  const added = rows.filter((r) => r.presence === 'added').length, removed = rows.filter((r) => r.presence === 'removed').length;
  return section(`${title} — ${rows.length} rows, ${added} added, ${removed} removed`,
    el('h3', {}, 'Top movers'), topMovers(rows), opTable(rows, kind, name));
}

export function renderComparison(root: HTMLElement, c: Comparison): void {
  // Why a run's steps are unknown, in the server's words.
  const notes = (['a', 'b'] as const).filter((side) => c.step_notes?.[side])
    .map((side) => el('p', { class: 'note', 'data-field': `step-note-${side}` }, `${side.toUpperCase()}'s steps are unknown: ${c.step_notes?.[side]}`));
  const parts: (HTMLElement | null)[] = [
    section('Step time and its breakdown (averages per step, ms)', ...notes, pairedBars(c.steps), metricTable(c.steps, (n) => STEP_LABELS[n] ?? n, 'compare-steps')),
  ];
  if (c.step_pairs.length > 0) {
    const rows: Metric[] = c.step_pairs.map((p) => {
      const m = p.metrics.find((x) => x.name === 'step_time_ms') as Metric;
      return { ...m, name: `${p.name_a ?? UNKNOWN} ↔ ${p.name_b ?? UNKNOWN}` };
    });
    parts.push(section(`Step by step (aligned by ${c.alignment === 'order' ? 'order' : 'step number'}; step time, ms)`, metricTable(rows, (n) => n, 'compare-step-pairs')));
  }
  parts.push(section('Input pipeline',
    el('p', {}, `Input classification — A: ${c.input_classification.a ?? UNKNOWN}, B: ${c.input_classification.b ?? UNKNOWN}`),
    el('p', { 'data-field': 'tf-data-a' }, `tf.data bottleneck A: ${tfDataText(c.tf_data.a)}`),
    el('p', { 'data-field': 'tf-data-b' }, `tf.data bottleneck B: ${tfDataText(c.tf_data.b)}`),
    metricTable(c.input_stages, (n) => n.replace(/_us$/, ' (µs)').replace(/_/g, ' '), 'compare-input-stages')));
  parts.push(opSection('Framework ops', c.framework_ops, 'ops', 'compare-framework-ops'));
  parts.push(opSection('HLO ops', c.hlo_ops, 'ops', 'compare-hlo-ops'));
  parts.push(opSection('Kernels', c.kernels, 'kernels', 'compare-kernels'));
  if (c.memory.length > 0) parts.push(section('Memory at the peak (bytes)', metricTable(c.memory, (n) => n, 'compare-memory')));
  if (c.step && (c.step.a !== null || c.step.b !== null)) {
    parts.push(opSection(`Host events of step ${c.step.a ?? UNKNOWN} (A) and step ${c.step.b ?? UNKNOWN} (B)`,
      c.step_events ?? [], 'ops', 'compare-step-events'));
  }
  for (const p of parts) if (p) root.appendChild(p);
}

// The page: run pickers for A and B, the alignment, then the comparison.
export async function renderComparePage(root: HTMLElement, params: CompareParams, signal: AbortSignal,
  navigate: (p: CompareParams) => void): Promise<void> {
  const runs = await fetchJson<string[]>(apiUrl('runs', {}), signal);
  const pick = (id: string, label: string, value: string, key: 'run' | 'base_run') => {
    const select = el('select', { id, 'aria-label': label }, el('option', { value: '' }, '— choose a run —'),
      ...runs.map((r) => el('option', { value: r }, r)));
    select.value = value;
    select.addEventListener('change', () => navigate({ ...params, [key]: select.value, [key === 'run' ? 'host' : 'base_host']: '' }));
    return el('label', { class: 'selector' }, el('span', {}, label), select);
  };
  // A run's hosts, or a PyTorch worker's spans (one trace file each). The server's default ('') combines a
  // run's hosts but takes a PyTorch run's first trace: spans are compared one at a time; the title names it.
  const hostPick = async (id: string, label: string, run: string, value: string, key: 'host' | 'base_host') => {
    if (!run) return null;
    const listed = await fetchJson<({ hostname: string } | string)[]>(apiUrl('hosts', { run, tag: 'compare' }), signal).catch(() => []);
    const hosts = (Array.isArray(listed) ? listed : []).map((h) => (typeof h === 'string' ? h : h.hostname)).filter((h) => h !== 'ALL_HOSTS');
    if (hosts.length < 2) return null;
    const select = el('select', { id, 'aria-label': label }, el('option', { value: '' }, 'default'),
      ...hosts.map((h) => el('option', { value: h }, h)));
    select.value = hosts.includes(value) ? value : '';
    select.addEventListener('change', () => navigate({ ...params, [key]: select.value }));
    return el('label', { class: 'selector' }, el('span', {}, label), select);
  };
  const stepBox = (id: string, label: string, value: string | undefined, key: 'step' | 'base_step') => {
    const input = el('input', { id, type: 'number', step: '1', placeholder: key === 'step' ? 'none' : 'as B', 'aria-label': label }) as HTMLInputElement;
    input.value = value ?? '';
    input.addEventListener('change', () => navigate({ ...params, [key]: input.value.trim() }));
    return el('label', { class: 'selector', title: 'Also compare the host events of this step (e.g. 1010 for ProfilerStep#1010), as HTA\'s trace diff does' },
      el('span', {}, label), input);
  };
  const [baseHost, host] = await Promise.all([
    hostPick('compare-base-host', 'A host / span', params.base_run, params.base_host, 'base_host'),
    hostPick('compare-host', 'B host / span', params.run, params.host, 'host')]);
  const align = el('select', { id: 'compare-align', 'aria-label': 'Steps' },
    ...[['average', 'per-step averages'], ['step_number', 'step by step, by step number'], ['order', 'step by step, in order']]
      .map(([v, t]) => el('option', { value: v }, t)));
  align.value = params.align || 'average';
  align.addEventListener('change', () => navigate({ ...params, align: align.value }));
  const back = el('a', { href: `?${new URLSearchParams({ run: params.run, ...(params.tool ? { tool: params.tool } : {}), host: params.host })}`, class: 'tool-link' }, `Back to ${params.run || 'the runs'}`);
  const controls: (HTMLElement | null)[] = [pick('compare-base-run', 'A (baseline)', params.base_run, 'base_run'), baseHost,
    pick('compare-run', 'B', params.run, 'run'), host, el('label', { class: 'selector' }, el('span', {}, 'Steps'), align),
    stepBox('compare-base-step', 'A step', params.base_step, 'base_step'), stepBox('compare-step', 'B step', params.step, 'step'), back];
  root.appendChild(el('div', { class: 'compare-controls' }, ...controls.filter((x): x is HTMLElement => x !== null)));
  if (!params.run || !params.base_run) {
    root.appendChild(message('info', 'Choose the baseline run A and the run B to compare with it; every delta is B − A.'));
    return;
  }
  const query = { tag: 'compare', run: params.run, host: params.host || undefined, base_run: params.base_run,
    base_host: params.base_host || undefined, align: params.align || undefined, step: params.step || undefined,
    base_step: params.base_step || undefined };
  const status = el('div', { class: 'loading', role: 'status' }, `Comparing ${params.run} with ${params.base_run}…`);
  root.appendChild(status);
  const c = await fetchJson<Comparison>(apiUrl('data', query), signal).finally(() => status.remove());
  root.appendChild(el('p', { class: 'compare-title' }, `A (baseline): ${c.run_a} — B: ${c.run_b}. Δ is B − A.`,
    ' ', el('a', { class: 'button', id: 'csv-export', download: '', href: apiUrl('data_csv', query) }, 'Export as CSV')));
  renderComparison(root, c);
  clear(status);
}
