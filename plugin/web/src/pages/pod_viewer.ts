import { el, section, message, clear } from '../dom';
import { PageContext } from '../page';
import { card, cards } from './common';
import { stackedColumns } from '../charts';
import { DataGrid, GridColumn } from '../table';
import { fmtNum } from '../format';

type CoreStats = Record<string, unknown> & { hostName?: string; stepBreakdownUs?: Record<string, number>; totalDurationUs?: number; bottleneck?: string; chipId?: number; nodeId?: number };
interface PodStats { stepNum?: number; podStatsPerCore?: Record<string, CoreStats> }
interface PodViewer {
  podStatsSequence?: { podStatsMap?: PodStats[] };
  stepBreakdownEvents?: { id: number | string; name: string }[];
  runEnvironment?: Record<string, unknown>; deviceType?: string; diagnostics?: { warnings?: string[]; errors?: string[] };
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
  const envCards = Object.entries(env).filter(([, v]) => typeof v !== 'object').map(([k, v]) => card(k, String(v)));
  if (data.deviceType) envCards.unshift(card('Device type', data.deviceType));
  if (envCards.length) ctx.root.appendChild(section('Run environment', cards(...envCards)));

  const stepPick = el('select', { id: 'step-select', 'aria-label': 'Step' }, ...steps.map((s, i) => el('option', { value: String(i) }, `step ${s.stepNum ?? i}`)));
  const body = el('div');
  ctx.root.append(el('div', { class: 'toolbar' }, el('label', {}, 'Step ', stepPick)), body);
  const draw = () => {
    clear(body);
    const step = steps[Number(stepPick.value)];
    const cores = Object.entries(step.podStatsPerCore ?? {});
    const comps = components(data, cores[0]?.[1]);
    const hosts = Array.from(new Set(cores.map(([, c]) => c.hostName ?? 'unknown'))).sort();
    // Per host: the mean over its cores, so hosts with different core counts compare.
    const series = comps.map((comp) => ({ name: comp.name, values: hosts.map((h) => {
      const mine = cores.filter(([, c]) => (c.hostName ?? 'unknown') === h);
      return mine.reduce((s, [, c]) => s + comp.get(c), 0) / Math.max(1, mine.length) / 1000;
    }) }));
    body.appendChild(section('Step breakdown per host (mean over cores, ms)', stackedColumns(hosts, series, { yLabel: 'milliseconds', name: 'pod-hosts' })));
    type Row = [string, CoreStats];
    const cols: GridColumn<Row>[] = [
      { id: 'core', label: 'Core', value: (r) => r[0] },
      { id: 'host', label: 'Host', value: (r) => r[1].hostName ?? '' },
      { id: 'total', label: 'Step time (µs)', numeric: true, value: (r) => Number(r[1].totalDurationUs ?? NaN) },
      ...comps.map((comp) => ({ id: comp.key, label: `${comp.name} (µs)`, numeric: true, value: (r: Row) => comp.get(r[1]), render: (r: Row) => fmtNum(comp.get(r[1]), 2) })),
      { id: 'bottleneck', label: 'Bottleneck', value: (r) => r[1].bottleneck ?? '' },
    ];
    body.appendChild(section('Per core', new DataGrid(cols, cores, { name: 'pod-cores', initialSort: { id: 'total', desc: true } }).root));
  };
  stepPick.addEventListener('change', draw);
  draw();
}
