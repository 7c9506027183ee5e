// The trace analysis page's per-rank figures: the queue length curve per stream, the launch-delay histogram, a
// step's critical path (and its link into the trace viewer) and the operator roofline (log-log, under the roofs).
import { el, svg, section, message, clear } from '../dom';
import { fmtUs, fmtNum } from '../format';
import { PageContext, baseToolName } from '../page';
import { dataUrl, fetchJson } from '../api';
import { DataGrid, GridColumn } from '../table';
import { PALETTE, stackedColumns, horizontalBars } from '../charts';
import { explain, Framework } from './trace_analysis_words';
import { TraceAnalysis, QueueRow, QueueSeries, Launch, LaunchSummary, Segment, RooflineRow, RooflinePeaks, figure, isNum, pct, whole, DASH, thresholdsText, rankId } from './trace_analysis_types';

const W = 860, H = 300, LEFT = 64, RIGHT = 16, TOP = 10, BOTTOM = 40;

// A rank picker over the ranks a section has rows for (none when there is one rank).
function rankPicker(id: string, ranks: string[], label: (r: string) => string, onPick: (r: string) => void): HTMLElement | null {
  if (ranks.length < 2) return null;
  const s = el('select', { id, 'aria-label': 'Rank' }, ...ranks.map((r) => el('option', { value: r }, label(r))));
  s.addEventListener('change', () => onPick(s.value));
  return el('label', { class: 'toolbar' }, 'Rank ', s);
}

function niceTop(v: number): number {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  return [1, 2, 2.5, 5, 10].map((m) => m * p).find((x) => x >= v) ?? 10 * p;
}

const streamName = (r: { device?: unknown; stream: unknown }) => `${r.device === undefined ? '' : `GPU ${String(r.device)} `}stream ${String(r.stream)}`;

// Outstanding operations on each stream of one rank over time, as steps (the length holds until the next point).
function queueChart(series: QueueSeries[]): HTMLElement {
  const pts = series.flatMap((s) => s.points);
  if (!pts.length) return message('empty', 'No queue length was recorded for this rank.');
  const t0 = Math.min(...pts.map((p) => p[0])), t1 = Math.max(...pts.map((p) => p[0]));
  const top = niceTop(Math.max(...pts.map((p) => p[1])));
  const plotW = W - LEFT - RIGHT, plotH = H - TOP - BOTTOM, span = t1 - t0 || 1;
  const px = (t: number) => LEFT + ((t - t0) / span) * plotW, py = (v: number) => TOP + plotH - (v / top) * plotH;
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'data-chart': 'ta-queue' });
  for (let i = 0; i <= 4; i++) {
    const y = TOP + plotH - (plotH * i) / 4;
    root.append(svg('line', { x1: LEFT, x2: LEFT + plotW, y1: y, y2: y, class: 'gridline' }),
      svg('text', { x: LEFT - 6, y: y + 4, 'text-anchor': 'end', class: 'axis' }, fmtNum((top * i) / 4, 1)));
  }
  for (let i = 0; i <= 5; i++) {
    root.append(svg('text', { x: LEFT + (plotW * i) / 5, y: TOP + plotH + 16, 'text-anchor': 'middle', class: 'axis' }, i === 0 ? '0' : fmtUs((span * i) / 5)));
  }
  root.append(svg('text', { x: LEFT + plotW / 2, y: H - 4, 'text-anchor': 'middle', class: 'axis' }, 'time since the first launch'),
    svg('text', { x: 12, y: TOP + plotH / 2, transform: `rotate(-90 12 ${TOP + plotH / 2})`, 'text-anchor': 'middle', class: 'axis' }, 'queue length'));
  const items: HTMLElement[] = [];
  series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length];
    let d = '';
    s.points.forEach(([t, v], j) => {
      d += j === 0 ? `M${px(t).toFixed(1)},${py(v).toFixed(1)}` : `H${px(t).toFixed(1)}V${py(v).toFixed(1)}`;
    });
    root.append(svg('path', { d, fill: 'none', stroke: color, 'stroke-width': 1.5, class: 'line', 'data-stream': String(s.stream), 'data-points': s.points.length },
      svg('title', {}, streamName(s))));
    const sw = el('span', { class: 'swatch' });
    sw.style.background = color;
    items.push(el('span', { class: 'legend-item' }, sw, streamName(s)));
  });
  return el('figure', { class: 'chart-box' }, root as unknown as Node, el('div', { class: 'legend' }, ...items));
}

function queueGrid(rows: QueueRow[]): HTMLElement {
  const n = (id: keyof QueueRow, label: string, fmt: (x: number) => string = (x) => fmtNum(x, 2), unit = ''): GridColumn<QueueRow> =>
    ({ id, label, numeric: true, value: (r) => (r[id] as number | null) ?? NaN, render: (r) => figure(r[id], fmt, unit) });
  return new DataGrid<QueueRow>([
    { id: 'rank', label: 'Rank', numeric: true, value: (r) => r.rank, render: (r) => String(r.rank) },
    { id: 'host', label: 'Host', value: (r) => r.host ?? '' },
    { id: 'stream', label: 'Stream', value: (r) => streamName(r) },
    n('count', 'Samples', (x) => fmtNum(x)), n('mean', 'Mean'), n('std', 'Std. dev.'), n('min', 'Min'), n('p25', 'p25'), n('p50', 'Median'),
    n('p75', 'p75'), n('max', 'Max'), n('time_blocked_on_full_queue_us', 'Blocked on a full queue', fmtUs, 'us'),
    n('blocked_pctg', 'Blocked (of the stream\'s span)', pct, '%'),
  ], rows, { name: 'ta-queue', initialSort: { id: 'max', desc: true } }).root;
}

export function queueSection(d: TraceAnalysis, fw: Framework, label: (r: string) => string): HTMLElement {
  const q = d.queue_length ?? {};
  const series = q.series ?? [];
  const ranks = [...new Set(series.map(rankId))];
  const box = el('div', { class: 'ta-queue-box' });
  const draw = (rank: string) => { clear(box); box.appendChild(queueChart(series.filter((s) => rankId(s) === rank))); };
  const limit = isNum(q.max_queue_length) ? `The queue counts as full at ${q.max_queue_length} outstanding operations.` : '';
  const sec = section('Queue length per stream', explain('queue', fw, limit), rankPicker('ta-queue-rank', ranks, label, draw), box, queueGrid(q.rows ?? []));
  if (ranks.length) draw(ranks[0]); else box.appendChild(message('empty', 'No kernel launch was recorded, so there is no queue to show.'));
  return sec;
}

function launchGrids(k: NonNullable<TraceAnalysis['kernel_launch']>): HTMLElement[] {
  const summary = new DataGrid<LaunchSummary>([
    { id: 'rank', label: 'Rank', numeric: true, value: (r) => r.rank, render: (r) => String(r.rank) },
    { id: 'launches', label: 'Launches', numeric: true, value: (r) => r.launches ?? NaN, render: (r) => figure(r.launches, (x) => fmtNum(x)) },
    { id: 'short_kernels', label: 'Short kernels', numeric: true, value: (r) => r.short_kernels ?? NaN, render: (r) => figure(r.short_kernels, (x) => fmtNum(x)) },
    { id: 'short_kernel_pctg', label: 'Short kernels (of launches)', numeric: true, value: (r) => r.short_kernel_pctg ?? NaN, render: (r) => figure(r.short_kernel_pctg, pct, '%') },
    { id: 'launch_delay_outliers', label: 'Launch-delay outliers', numeric: true, value: (r) => r.launch_delay_outliers ?? NaN, render: (r) => figure(r.launch_delay_outliers, (x) => fmtNum(x)) },
    { id: 'mean_launch_delay_us', label: 'Mean delay', numeric: true, value: (r) => r.mean_launch_delay_us ?? NaN, render: (r) => figure(r.mean_launch_delay_us, fmtUs, 'us') },
    { id: 'p50_launch_delay_us', label: 'Median delay', numeric: true, value: (r) => r.p50_launch_delay_us ?? NaN, render: (r) => figure(r.p50_launch_delay_us, fmtUs, 'us') },
    { id: 'p95_launch_delay_us', label: 'p95 delay', numeric: true, value: (r) => r.p95_launch_delay_us ?? NaN, render: (r) => figure(r.p95_launch_delay_us, fmtUs, 'us') },
  ], k.summary ?? [], { name: 'ta-launch-summary', initialSort: { id: 'rank', desc: false } });
  const launches = k.launches ?? [];
  const list = new DataGrid<Launch>([
    { id: 'rank', label: 'Rank', numeric: true, value: (r) => r.rank, render: (r) => String(r.rank) },
    { id: 'correlation', label: 'Correlation', value: (r) => String(r.correlation) },
    { id: 'cpu_duration_us', label: 'Launch call (CPU)', numeric: true, value: (r) => r.cpu_duration_us ?? NaN, render: (r) => figure(r.cpu_duration_us, fmtUs, 'us') },
    { id: 'gpu_duration_us', label: 'Kernel (GPU)', numeric: true, value: (r) => r.gpu_duration_us ?? NaN, render: (r) => figure(r.gpu_duration_us, fmtUs, 'us') },
    { id: 'launch_delay_us', label: 'Launch delay', numeric: true, value: (r) => r.launch_delay_us ?? NaN, render: (r) => figure(r.launch_delay_us, fmtUs, 'us') },
  ], launches, { name: 'ta-launches', initialSort: { id: 'launch_delay_us', desc: true } });
  const total = k.launches_total;
  const capped = isNum(total) && total > launches.length ? el('p', { class: 'hint' }, `The server lists ${fmtNum(launches.length)} of the ${fmtNum(total)} launches.`) : null;
  return [summary.root, el('h3', {}, 'Launches'), ...(capped ? [capped] : []), list.root];
}

export function launchSection(d: TraceAnalysis, fw: Framework, label: (r: string) => string): HTMLElement {
  const k = d.kernel_launch ?? {};
  const hist = k.delay_histogram ?? [];
  const ranks = hist.map(rankId);
  const box = el('div');
  const draw = (rank: string) => {
    clear(box);
    const bins = hist.find((h) => rankId(h) === rank)?.bins ?? [];
    if (!bins.length) { box.appendChild(message('empty', 'No kernel launch was recorded on this rank.')); return; }
    // The last bin may be open: "≥ from".
    const names = bins.map((b) => (isNum(b.to_us) ? `${fmtNum(b.from_us, 1)}–${fmtNum(b.to_us, 1)}` : `≥ ${fmtNum(b.from_us, 1)}`));
    box.appendChild(stackedColumns(names, [{ name: 'launches', id: 'launches', color: PALETTE[0], values: bins.map((b) => b.count) }],
      { yLabel: 'launches', name: 'ta-launch-delay' }));
    box.appendChild(el('p', { class: 'hint' }, 'Launch delay in µs, from the launch call\'s start to the kernel\'s start.'));
  };
  const sec = section('Kernel launches and launch delay', explain('launch', fw, thresholdsText(k.thresholds)),
    rankPicker('ta-launch-rank', ranks, label, draw), box, ...launchGrids(k));
  if (ranks.length) draw(ranks[0]); else box.appendChild(message('empty', 'No kernel launch with a matching kernel was recorded.'));
  return sec;
}

// The trace viewer on the rank's host with the path drawn as flows.
// `step` null: a profile that marks no steps, whose path is the whole profile's (critical_path with no step).
function traceLink(ctx: PageContext, d: TraceAnalysis, step: number | null, segments: Segment[]): HTMLElement | null {
  const tool = ctx.tools.find((t) => t === 'trace_viewer@') ?? ctx.tools.find((t) => baseToolName(t) === 'trace_viewer');
  if (!tool) return null;
  const first = segments[0];
  const host = ctx.sel.host && ctx.sel.host !== 'ALL_HOSTS' ? ctx.sel.host : first?.host || (d.ranks?.find((r) => r.rank === first?.rank)?.host ?? ctx.sel.host);
  const q = new URLSearchParams({ run: ctx.sel.run, tool, host, critical_path: step === null ? '' : String(step) });
  return el('a', { href: `?${q.toString()}`, id: 'ta-critical-path-link', class: 'button', 'data-step': step === null ? '' : String(step), 'data-host': host },
    step === null ? 'Show the whole profile\'s critical path in the trace viewer' : `Show step ${step}'s critical path in the trace viewer`);
}

function pathBody(ctx: PageContext, d: TraceAnalysis, cp: NonNullable<TraceAnalysis['critical_path']>): HTMLElement {
  const segs = cp.segments ?? [];
  const step = isNum(cp.step) ? cp.step : null;
  if ((step === null && cp.whole_profile !== true) || !segs.length) return message('empty', cp.reason ?? 'No critical path: the profile has no complete step with kernels.');
  const kinds = new Map<string, number>();
  for (const s of segs) if (isNum(s.share_pctg)) kinds.set(s.kind, (kinds.get(s.kind) ?? 0) + s.share_pctg);
  const grid = new DataGrid<Segment>([
    { id: 'order', label: '#', numeric: true, value: (s) => segs.indexOf(s), render: (s) => String(segs.indexOf(s) + 1) },
    { id: 'kind', label: 'Kind', value: (s) => s.kind },
    { id: 'name', label: 'Name', value: (s) => s.name, longText: true },
    { id: 'rank', label: 'Rank', numeric: true, value: (s) => s.rank, render: (s) => String(s.rank) },
    { id: 'start_us', label: 'Start', numeric: true, value: (s) => s.start_us ?? NaN, render: (s) => figure(s.start_us, fmtUs, 'us') },
    { id: 'duration_us', label: 'Duration', numeric: true, value: (s) => s.duration_us ?? NaN, render: (s) => figure(s.duration_us, fmtUs, 'us') },
    { id: 'share_pctg', label: 'Share of the path', numeric: true, value: (s) => s.share_pctg ?? NaN, render: (s) => figure(s.share_pctg, pct, '%') },
  ], segs, { name: 'ta-critical-path', initialSort: { id: 'order', desc: false } });
  return el('div', { id: 'ta-critical-path', 'data-step': step === null ? '' : String(step), 'data-segments': String(segs.length) },
    el('p', {}, step === null ? 'The profile marks no steps: the path of the whole profile. ' : '', 'Length: ', figure(cp.length_us, fmtUs, 'us'),
      ` · ${segs.length} segments.`), traceLink(ctx, d, step, segs),
    horizontalBars([...kinds].map(([name, value]) => ({ name, value })), { unit: '%', name: 'ta-critical-kinds' }), grid.root);
}

export function criticalPathSection(ctx: PageContext, d: TraceAnalysis, fw: Framework): HTMLElement {
  const cp = d.critical_path ?? {};
  const body = el('div');
  body.appendChild(d.critical_path ? pathBody(ctx, d, cp) : message('empty', 'The server\'s answer has no critical_path section.'));
  const steps = cp.steps ?? [];
  let picker: HTMLElement | null = null;
  if (steps.length > 1) {
    const s = el('select', { id: 'ta-step', 'aria-label': 'Step' }, ...steps.map((n) => el('option', { value: String(n) }, `step ${n}`)));
    if (isNum(cp.step)) s.value = String(cp.step);
    s.addEventListener('change', () => {
      clear(body);
      body.appendChild(el('div', { class: 'loading', role: 'status' }, `Loading the critical path of step ${s.value}…`));
      fetchJson<TraceAnalysis>(dataUrl(ctx.sel, { step: s.value }), ctx.signal).then((next) => {
        clear(body); body.appendChild(pathBody(ctx, next, next.critical_path ?? {}));
      }, (e: Error) => { if (e.name !== 'AbortError') { clear(body); body.appendChild(message('error', `The critical path could not be loaded: ${e.message}`)); } });
    });
    picker = el('label', { class: 'toolbar' }, 'Step ', s);
  }
  return section('Critical path of a step', explain('critical_path', fw), picker, body);
}

// The device's compute roofs, one per precision its datasheet states (precisions with the same peak share a roof).
interface ComputeRoof { name: string; tflops: number }
function computeRoofs(peaks: RooflinePeaks): ComputeRoof[] {
  const out: ComputeRoof[] = [];
  for (const [name, v] of [['FP32', peaks.fp32_tflops], ['TF32', peaks.tf32_tflops], ['FP16', peaks.fp16_tflops], ['BF16', peaks.bf16_tflops]] as const) {
    if (!isNum(v)) continue;
    const same = out.find((r) => r.tflops === v);
    if (same) same.name += `/${name}`; else out.push({ name, tflops: v });
  }
  // A server that states one roof only (no datasheet precisions) still draws it.
  if (!out.length && isNum(peaks.tflops)) out.push({ name: 'peak', tflops: peaks.tflops });
  return out;
}

// Operators on log-log axes: arithmetic intensity (FLOP/byte) against achieved TFLOP/s, under the device's roofs.
function rooflineChart(rows: RooflineRow[], roofs: ComputeRoof[], gbps: number | null): HTMLElement {
  const pts = rows.filter((r) => isNum(r.arithmetic_intensity) && isNum(r.tflops_per_s) && r.arithmetic_intensity > 0 && r.tflops_per_s > 0);
  if (!pts.length) return message('empty', 'No operator has known FLOPs and bytes (its input shapes were not recorded), so nothing is drawn.');
  const xs = pts.map((r) => r.arithmetic_intensity as number), ys = pts.map((r) => r.tflops_per_s as number);
  const top = roofs.length ? Math.max(...roofs.map((r) => r.tflops)) : null;
  if (top !== null) ys.push(top * 2);
  if (top !== null && gbps !== null) xs.push((top * 1000) / gbps);
  const lx0 = Math.floor(Math.log10(Math.min(...xs))), lx1 = Math.max(lx0 + 1, Math.ceil(Math.log10(Math.max(...xs))));
  const ly0 = Math.floor(Math.log10(Math.min(...ys))), ly1 = Math.max(ly0 + 1, Math.ceil(Math.log10(Math.max(...ys))));
  const h = 420, plotW = W - LEFT - RIGHT, plotH = h - TOP - BOTTOM;
  const px = (x: number) => LEFT + ((Math.log10(x) - lx0) / (lx1 - lx0)) * plotW;
  const py = (y: number) => TOP + plotH - ((Math.log10(y) - ly0) / (ly1 - ly0)) * plotH;
  const root = svg('svg', { viewBox: `0 0 ${W} ${h}`, class: 'chart roofline', role: 'img', 'data-chart': 'ta-roofline' });
  for (let e = lx0; e <= lx1; e++) root.append(svg('text', { x: px(10 ** e), y: TOP + plotH + 16, 'text-anchor': 'middle', class: 'axis' }, fmtNum(10 ** e, 3)));
  for (let e = ly0; e <= ly1; e++) {
    root.append(svg('line', { x1: LEFT, x2: LEFT + plotW, y1: py(10 ** e), y2: py(10 ** e), class: 'gridline' }),
      svg('text', { x: LEFT - 6, y: py(10 ** e) + 4, 'text-anchor': 'end', class: 'axis' }, fmtNum(10 ** e, 3)));
  }
  root.append(svg('text', { x: LEFT + plotW / 2, y: h - 4, 'text-anchor': 'middle', class: 'axis' }, 'arithmetic intensity (FLOP/byte)'),
    svg('text', { x: 12, y: TOP + plotH / 2, transform: `rotate(-90 12 ${TOP + plotH / 2})`, 'text-anchor': 'middle', class: 'axis' }, 'TFLOP/s'));
  const xMin = 10 ** lx0, xMax = 10 ** lx1, yMin = 10 ** ly0;
  if (gbps !== null) {
    // The memory roof: TFLOP/s = intensity × bandwidth, up to the highest compute roof.
    const knee = top !== null ? (top * 1000) / gbps : xMax;
    const from = Math.max(xMin, (yMin * 1000) / gbps);
    const to = Math.min(xMax, knee);
    if (to > from) root.append(svg('polyline', { class: 'roof', 'data-roof': 'memory', points: `${px(from)},${py((from * gbps) / 1000)} ${px(to)},${py((to * gbps) / 1000)}` },
      svg('title', {}, `Memory roof: ${fmtNum(gbps, 1)} GB/s`)));
  }
  for (const roof of roofs) {
    // Each compute roof runs flat from its ridge point (where it meets the memory roof).
    const from = gbps !== null ? Math.max(xMin, (roof.tflops * 1000) / gbps) : xMin;
    root.append(svg('polyline', { class: 'roof', 'data-roof': 'compute', 'data-precision': roof.name, 'data-tflops': String(roof.tflops),
      points: `${px(from)},${py(roof.tflops)} ${px(xMax)},${py(roof.tflops)}` }, svg('title', {}, `${roof.name} compute roof: ${fmtNum(roof.tflops, 1)} TFLOP/s`)),
    svg('text', { x: LEFT + plotW - 4, y: py(roof.tflops) - 4, 'text-anchor': 'end', class: 'axis roof-label' }, `${roof.name} ${fmtNum(roof.tflops, 1)}`));
  }
  pts.forEach((r) => root.append(svg('circle', { cx: px(r.arithmetic_intensity as number), cy: py(r.tflops_per_s as number), r: 4.5, class: 'point',
    fill: r.bound === 'memory' ? PALETTE[1] : PALETTE[0], 'data-op': r.op, 'data-bound': r.bound ?? '' },
  svg('title', {}, `${r.op}${r.input_dims ? ` ${r.input_dims}` : ''} (rank ${r.rank}): ${fmtNum(r.tflops_per_s as number, 3)} TFLOP/s at ${fmtNum(r.arithmetic_intensity as number, 3)} FLOP/byte, `
    + `${r.bound ? `${r.bound} bound under the ${(r.roof_precision ?? '').toUpperCase()} roof` : 'bound unknown'}`))));
  return el('figure', { class: 'chart-box' }, root as unknown as Node,
    el('p', { class: 'hint' }, `${pts.length} of ${rows.length} operators drawn; the others have unknown FLOPs or bytes.`));
}

function roofsText(peaks: RooflinePeaks, roofs: ComputeRoof[], gbps: number | null): string {
  const device = peaks.device ? `Device: ${peaks.gpu_name ? `${peaks.gpu_name} (${peaks.device})` : peaks.device}. ` : '';
  const source = peaks.datasheet ? `Roofs from NVIDIA's datasheet for the ${peaks.datasheet} (dense, without sparsity). `
    : roofs.length || gbps !== null ? 'Roofs as the profile states them. '
      : 'The profile states no peaks and this device is not in tbprof\'s datasheet table, so the roofs and each operator\'s bound are unknown. ';
  const compute = roofs.length ? roofs.map((r) => `${r.name} ${fmtNum(r.tflops, 1)} TFLOP/s`).join(', ') : DASH;
  return `${device}${source}Compute roofs: ${compute}; memory roof: ${gbps === null ? DASH : `${fmtNum(gbps, 1)} GB/s`}.`;
}

export function rooflineSection(d: TraceAnalysis, fw: Framework): HTMLElement {
  const r = d.op_roofline ?? {};
  const rows = r.rows ?? [];
  const peaks: RooflinePeaks = r.peaks ?? { tflops: null, memory_gbps: null };
  const roofs = computeRoofs(peaks), gbps = isNum(peaks.memory_gbps) ? peaks.memory_gbps : null;
  const noShape = 'Unknown: the operator\'s input shapes or dtypes were not recorded.';
  const noRoof = 'Unknown: the device\'s peak for this operator\'s precision, or its FLOPs and bytes, are unknown.';
  const grid = new DataGrid<RooflineRow>([
    { id: 'rank', label: 'Rank', numeric: true, value: (x) => x.rank, render: (x) => String(x.rank) },
    { id: 'host', label: 'Host', value: (x) => x.host ?? '' },
    { id: 'op', label: 'Operator', value: (x) => x.op, longText: true },
    { id: 'input_dims', label: 'Input dims', value: (x) => x.input_dims ?? '', longText: true },
    { id: 'input_types', label: 'Input types', value: (x) => x.input_types ?? '', longText: true },
    { id: 'count', label: 'Calls', numeric: true, value: (x) => x.count ?? NaN, render: (x) => figure(x.count, (v) => fmtNum(v)) },
    { id: 'time_us', label: 'Time', numeric: true, value: (x) => x.time_us ?? NaN, render: (x) => figure(x.time_us, fmtUs, 'us') },
    { id: 'flops', label: 'FLOPs', numeric: true, value: (x) => x.flops ?? NaN, render: (x) => figure(x.flops, whole, '', noShape) },
    { id: 'bytes', label: 'Bytes', numeric: true, value: (x) => x.bytes ?? NaN, render: (x) => figure(x.bytes, whole, '', noShape) },
    { id: 'tflops_per_s', label: 'TFLOP/s', numeric: true, value: (x) => x.tflops_per_s ?? NaN, render: (x) => figure(x.tflops_per_s, (v) => fmtNum(v, 3), '', noShape) },
    { id: 'arithmetic_intensity', label: 'FLOP/byte', numeric: true, value: (x) => x.arithmetic_intensity ?? NaN,
      render: (x) => figure(x.arithmetic_intensity, (v) => fmtNum(v, 3), '', noShape) },
    { id: 'roof_precision', label: 'Roof', value: (x) => x.roof_precision ?? '', render: (x) => x.roof_precision ? x.roof_precision.toUpperCase() : el('span', { class: 'unknown', title: noRoof }, DASH) },
    { id: 'roof_tflops', label: 'Roof TFLOP/s', numeric: true, value: (x) => x.roof_tflops ?? NaN, render: (x) => figure(x.roof_tflops, (v) => fmtNum(v, 3), '', noRoof) },
    { id: 'roof_pctg', label: 'Of roof', numeric: true, value: (x) => x.roof_pctg ?? NaN, render: (x) => figure(x.roof_pctg, pct, '%', noRoof) },
    { id: 'bound', label: 'Bound', value: (x) => x.bound ?? '', render: (x) => x.bound ?? el('span', { class: 'unknown', title: noRoof }, DASH) },
  ], rows, { name: 'ta-roofline', initialSort: { id: 'time_us', desc: true } });
  return section('Operator roofline', explain('roofline', fw), el('p', { id: 'ta-roofs', 'data-datasheet': peaks.datasheet ?? '' }, roofsText(peaks, roofs, gbps)),
    rows.length ? rooflineChart(rows, roofs, gbps) : message('empty', !d.op_roofline ? 'The server\'s answer has no op_roofline section.'
      : r.reason ?? 'No operator with recorded shapes in this profile.'), grid.root);
}
