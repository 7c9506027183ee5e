import { el, section, message, clear, svg } from '../dom';
import { PageContext } from '../page';
import { card, cards } from './common';
import { stackedColumns, horizontalBars, seriesColors } from '../charts';
import { DataGrid, GridColumn } from '../table';
import { fmtNum, fmtBytes } from '../format';

type CoreStats = Record<string, unknown> & { hostName?: string; stepBreakdownUs?: Record<string, number>; totalDurationUs?: number; bottleneck?: string; chipId?: number; nodeId?: number };
interface AllReduceOp { name?: string; description?: string; durationUs?: number; dataSize?: string | number; occurrences?: number; replicaGroups?: unknown[] }
interface Channel { channelId?: string | number; srcCoreIds?: unknown[]; dstCoreIds?: unknown[]; dataSize?: string | number; durationUs?: number;
  occurrences?: number; utilization?: number; hloNames?: string[]; sendDelayUs?: number }
interface PodStats { stepNum?: number; podStatsPerCore?: Record<string, CoreStats>; allReduceOpDb?: AllReduceOp[]; channelDb?: Channel[] }
interface PodViewer {
  podStatsSequence?: { podStatsMap?: PodStats[] };
  stepBreakdownEvents?: { id: number | string; name: string }[];
  runEnvironment?: Record<string, unknown> & { topology?: Record<string, string | number> }; deviceType?: string; diagnostics?: { warnings?: string[]; errors?: string[] };
}

// Newer xprof names the components in stepBreakdownEvents; older files use fixed *Us fields.
function components(data: PodViewer, sample: CoreStats | undefined): { key: string; name: string; get: (c: CoreStats) => number }[] {
  if (data.stepBreakdownEvents?.length) {
    return data.stepBreakdownEvents.map((e) => ({ key: String(e.id), name: e.name, get: (c: CoreStats) => Number(c.stepBreakdownUs?.[String(e.id)] ?? 0) }));
  }
  const keys = Object.keys(sample ?? {}).filter((k) => /Us$/.test(k) && k !== 'totalDurationUs' && typeof sample?.[k] === 'number');
  const pretty = (k: string) => k.replace(/Us$/, '').replace(/([A-Z])/g, ' $1').toLowerCase().trim();
  return keys.map((k) => ({ key: k, name: pretty(k), get: (c: CoreStats) => Number(c[k] ?? 0) }));
}

export async function renderPodViewer(ctx: PageContext): Promise<void> {
  const data = await ctx.load<PodViewer>();
  const steps = data.podStatsSequence?.podStatsMap ?? [];
  for (const w of data.diagnostics?.errors ?? []) ctx.root.appendChild(message('error', w));
  for (const w of data.diagnostics?.warnings ?? []) ctx.root.appendChild(message('info', w));
  if (steps.length === 0) { ctx.root.appendChild(message('empty', 'No per-step pod statistics in this profile (pod_viewer needs step markers).')); return; }
  const env = data.runEnvironment ?? {};
  const envCards = Object.entries(env).filter(([, v]) => typeof v !== 'object').map(([k, v]) => card(k, String(v), '', { key: k, json: typeof v === 'number' ? v : undefined }));
  if (data.deviceType) envCards.unshift(card('Device type', data.deviceType));
  if (envCards.length) ctx.root.appendChild(section('Run environment', cards(...envCards)));

  // A slider over the steps, as xprof's; the label says which step it is.
  const stepPick = el('input', { type: 'range', id: 'step-slider', min: '0', max: String(steps.length - 1), value: '0', step: '1', 'aria-label': 'Step' });
  const stepLabel = el('span', { id: 'step-label' });
  const body = el('div');
  ctx.root.append(el('div', { class: 'toolbar' }, el('label', {}, 'Step ', stepPick), stepLabel), body);
  const draw = () => {
    clear(body);
    const step = steps[Number(stepPick.value)];
    stepLabel.textContent = `step ${step.stepNum ?? stepPick.value} (${Number(stepPick.value) + 1} of ${steps.length})`;
    const cores = Object.entries(step.podStatsPerCore ?? {});
    const comps = components(data, cores[0]?.[1]);
    const hosts = Array.from(new Set(cores.map(([, c]) => c.hostName ?? 'unknown'))).sort();
    // Per host: the mean over its cores, so hosts with different core counts compare.
    const mean = (h: string, get: (c: CoreStats) => number) => {
      const mine = cores.filter(([, c]) => (c.hostName ?? 'unknown') === h);
      return mine.reduce((acc, [, c]) => acc + get(c), 0) / Math.max(1, mine.length) / 1000;
    };
    const colors = seriesColors(comps.map((comp) => comp.name));
    const series = comps.map((comp, i) => ({ name: comp.name, id: comp.key, color: colors[i], values: hosts.map((h) => mean(h, comp.get)) }));
    // The breakdown need not cover the whole step: the rest is drawn as its own part, so each column is the step time.
    const rest = hosts.map((h) => Math.max(0, mean(h, (c) => Number(c.totalDurationUs ?? 0)) - series.reduce((acc, se) => acc + se.values[hosts.indexOf(h)], 0)));
    const restShown = rest.some((v) => v > 1e-6);
    if (restShown) series.push({ name: 'Rest of the step (not in the breakdown)', id: 'rest', color: '#d3d3d3', values: rest });
    body.appendChild(section('Step breakdown per host (mean over cores, ms)', stackedColumns(hosts, series, { yLabel: 'milliseconds', name: 'pod-hosts' }),
      restShown ? el('p', { class: 'hint' }, 'The server\'s breakdown does not cover the whole step time; "Rest of the step" is the step time it leaves out.') : null));
    const topo = topology(data, cores);
    if (topo) body.appendChild(section('Topology (step time per chip)', topo));
    type Row = [string, CoreStats];
    const cols: GridColumn<Row>[] = [
      { id: 'core', label: 'Core', value: (r) => r[0] },
      { id: 'host', label: 'Host', value: (r) => r[1].hostName ?? '' },
      { id: 'total', label: 'Step time (µs)', numeric: true, value: (r) => Number(r[1].totalDurationUs ?? NaN) },
      ...comps.map((comp) => ({ id: comp.key, label: `${comp.name} (µs)`, numeric: true, value: (r: Row) => comp.get(r[1]), render: (r: Row) => fmtNum(comp.get(r[1]), 2) })),
      { id: 'bottleneck', label: 'Bottleneck', value: (r) => r[1].bottleneck ?? '' },
    ];
    body.appendChild(section('Per core', new DataGrid(cols, cores, { name: 'pod-cores', initialSort: { id: 'total', desc: true } }).root));
    body.appendChild(section('All-reduce operations', allReduce(step.allReduceOpDb ?? [])));
    body.appendChild(section('Channels (send/recv latency)', channels(step.channelDb ?? [])));
  };
  stepPick.addEventListener('input', draw);
  draw();
}

// Chips on the x × y grid of the run's topology, coloured by their mean step time (darker is slower).
function topology(data: PodViewer, cores: [string, CoreStats][]): HTMLElement | null {
  const t = data.runEnvironment?.topology;
  const x = Number(t?.xDimension ?? 0), y = Number(t?.yDimension ?? 0);
  if (!(x > 0 && y > 0)) return null;
  const perChip = new Map<number, number[]>();
  for (const [, c] of cores) {
    const chip = Number(c.chipId ?? NaN);
    if (!Number.isFinite(chip)) continue;
    perChip.set(chip, [...(perChip.get(chip) ?? []), Number(c.totalDurationUs ?? NaN)]);
  }
  const avg = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  const times = Array.from(perChip.values(), avg).filter(Number.isFinite);
  const lo = Math.min(...times), hi = Math.max(...times);
  const cell = 110, pad = 6;
  const root = svg('svg', { viewBox: `0 0 ${x * cell + pad} ${y * cell + pad}`, class: 'topology', role: 'img', 'data-chart': 'pod-topology' });
  for (let j = 0; j < y; j++) for (let i = 0; i < x; i++) {
    const chip = j * x + i, v = perChip.has(chip) ? avg(perChip.get(chip)!) : NaN;
    const shade = Number.isFinite(v) && hi > lo ? (v - lo) / (hi - lo) : 0;
    const g = svg('g', { class: 'chip', 'data-chip': chip, 'data-step-us': Number.isFinite(v) ? v : '' });
    g.appendChild(svg('rect', { x: pad + i * cell, y: pad + j * cell, width: cell - pad, height: cell - pad, rx: 6,
      fill: Number.isFinite(v) ? `rgba(78,121,167,${0.25 + 0.7 * shade})` : '#eee' }, svg('title', {}, Number.isFinite(v) ? `chip ${chip}: ${fmtNum(v / 1000, 3)} ms` : `chip ${chip}: no data`)));
    g.appendChild(svg('text', { x: pad + i * cell + 8, y: pad + j * cell + 20, class: 'axis' }, `chip ${chip}`));
    g.appendChild(svg('text', { x: pad + i * cell + 8, y: pad + j * cell + 40, class: 'axis' }, Number.isFinite(v) ? `${fmtNum(v / 1000, 3)} ms` : '—'));
    root.appendChild(g);
  }
  return el('figure', { class: 'chart-box' }, root as unknown as Node, el('p', { class: 'hint' }, `${x} × ${y} chips; darker is slower.`));
}

function allReduce(ops: AllReduceOp[]): HTMLElement {
  if (!ops.length) return message('empty', 'This step records no all-reduce operations.');
  const top = ops.map((o) => ({ name: o.name ?? '', value: Number(o.durationUs ?? NaN) })).filter((o) => Number.isFinite(o.value))
    .sort((a, b) => b.value - a.value).slice(0, 15);
  const grid = new DataGrid([
    { id: 'name', label: 'Operation', value: (o) => o.name ?? '' },
    { id: 'occurrences', label: 'Occurrences', numeric: true, value: (o) => Number(o.occurrences ?? NaN) },
    { id: 'dataSize', label: 'Data size', numeric: true, value: (o) => Number(o.dataSize ?? NaN), render: (o) => fmtBytes(Number(o.dataSize ?? 0)) },
    { id: 'durationUs', label: 'Duration (µs)', numeric: true, value: (o) => Number(o.durationUs ?? NaN) },
    { id: 'description', label: 'HLO', value: (o) => o.description ?? '', longText: true },
  ] as GridColumn<AllReduceOp>[], ops, { name: 'pod-all-reduce', initialSort: { id: 'durationUs', desc: true } });
  return el('div', {}, horizontalBars(top, { unit: ' µs', name: 'pod-all-reduce-chart' }), grid.root);
}

function channels(list: Channel[]): HTMLElement {
  if (!list.length) return message('empty', 'This step records no send/recv channels, so there is no channel latency to show.');
  const top = list.map((c) => ({ name: `channel ${c.channelId}`, value: Number(c.durationUs ?? NaN) })).filter((c) => Number.isFinite(c.value))
    .sort((a, b) => b.value - a.value).slice(0, 15);
  const grid = new DataGrid([
    { id: 'channelId', label: 'Channel', value: (c) => String(c.channelId ?? '') },
    { id: 'src', label: 'Source cores', value: (c) => (c.srcCoreIds ?? []).join(', ') },
    { id: 'dst', label: 'Destination cores', value: (c) => (c.dstCoreIds ?? []).join(', ') },
    { id: 'dataSize', label: 'Data size', numeric: true, value: (c) => Number(c.dataSize ?? NaN), render: (c) => fmtBytes(Number(c.dataSize ?? 0)) },
    { id: 'durationUs', label: 'Latency (µs)', numeric: true, value: (c) => Number(c.durationUs ?? NaN) },
    { id: 'occurrences', label: 'Occurrences', numeric: true, value: (c) => Number(c.occurrences ?? NaN) },
  ] as GridColumn<Channel>[], list, { name: 'pod-channels', initialSort: { id: 'durationUs', desc: true } });
  return el('div', {}, horizontalBars(top, { unit: ' µs', name: 'pod-channels-chart' }), grid.root);
}
