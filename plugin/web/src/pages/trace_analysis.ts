// trace_analysis: HTA's analyses of a GPU trace (and TraceLens's operator roofline), rank by rank: the rank table,
// the kernel-type overlap and idle-breakdown charts, the queue length per stream, the launch-delay histogram, the
// stragglers, a step's critical path (with a link that draws it in the trace viewer) and the operator roofline.
// Each section says what its figures mean and what to try, in the words of the framework that wrote the profile.
import { el, section, message } from '../dom';
import { fmtUs, fmtNum, middleEllipsis } from '../format';
import { PageContext } from '../page';
import { DataGrid, GridColumn } from '../table';
import { stackedColumns, horizontalBars, seriesColors } from '../charts';
import { explain, Framework, frameworkOf } from './trace_analysis_words';
import { TraceAnalysis, TemporalRow, StragglerRow, LaunchSummary, figure, isNum, pct, whole, DASH, thresholdsText, rankLabel, rankId } from './trace_analysis_types';
import { queueSection, launchSection, rooflineSection, criticalPathSection } from './trace_analysis_charts';

interface RankRow {
  id: string; rank: number; host: string; temporal?: TemporalRow; communication: number | null; overlap: number | null | undefined;
  straggler?: StragglerRow; launch?: LaunchSummary;
}

function rankRows(d: TraceAnalysis): RankRow[] {
  const ranks = new Map<string, RankRow>();
  const row = (x: { rank: number; host?: string }) => {
    const id = rankId(x);
    let r = ranks.get(id);
    if (!r) { r = { id, rank: x.rank, host: x.host ?? '', communication: null, overlap: undefined }; ranks.set(id, r); }
    return r;
  };
  for (const x of d.ranks ?? []) row(x);
  for (const t of d.temporal_breakdown?.rows ?? []) row(t).temporal = t;
  // Communication's share of kernel time: the COMMUNICATION class and every class it overlaps with.
  for (const k of d.kernel_breakdown?.kernel_types ?? []) {
    if (!/COMMUNICATION/.test(k.kernel_type) || !isNum(k.percentage)) continue;
    const r = row(k);
    r.communication = (r.communication ?? 0) + k.percentage;
  }
  for (const o of d.comm_comp_overlap?.rows ?? []) row(o).overlap = o.comp_comm_overlap_pctg;
  for (const s of d.stragglers?.rows ?? []) row(s).straggler = s;
  for (const l of d.kernel_launch?.summary ?? []) row(l).launch = l;
  // A rank with kernels but no communication kernel has no communication time: 0 of its kernel time, a measured figure.
  for (const r of ranks.values()) if (r.communication === null && (d.kernel_breakdown?.kernel_types ?? []).some((k) => rankId(k) === r.id)) r.communication = 0;
  return [...ranks.values()].sort((a, b) => a.rank - b.rank || a.host.localeCompare(b.host));
}

// A sparkline-sized bar with its percentage; unknown is "—" without a bar.
function barCell(v: number | null | undefined, kind: string, served: boolean, why: string): HTMLElement {
  if (!isNum(v)) return el('span', { class: 'unknown', title: why }, DASH);
  const fill = el('span', { class: `ta-fill ta-${kind}` });
  fill.style.width = `${Math.max(0, Math.min(100, v))}%`;
  const text = el('span', { class: 'util-text' }, pct(v));
  if (served) { text.setAttribute('data-json', String(v)); text.setAttribute('data-json-unit', '%'); }
  return el('span', { class: 'util ta-bar', 'data-kind': kind, 'data-value': String(v) }, el('span', { class: 'util-bar' }, fill), text);
}

function rankTable(d: TraceAnalysis): HTMLElement {
  const rows = rankRows(d);
  const multi = new Set(rows.map((r) => r.host)).size > 1;
  const noComm = 'No communication kernel ran on this rank, so there is no communication to overlap.';
  const noFigure = 'Unknown: the server could not compute this figure for this rank.';
  const cols: GridColumn<RankRow>[] = [
    { id: 'rank', label: 'Rank', numeric: true, value: (r) => r.rank, render: (r) => String(r.rank) },
    { id: 'host', label: 'Host', value: (r) => r.host },
    { id: 'idle', label: 'Idle (of GPU span)', numeric: true, value: (r) => r.temporal?.idle_time_pctg ?? NaN,
      render: (r) => barCell(r.temporal?.idle_time_pctg, 'idle', true, noFigure) },
    { id: 'compute', label: 'Compute (of GPU span)', numeric: true, value: (r) => r.temporal?.compute_time_pctg ?? NaN,
      render: (r) => barCell(r.temporal?.compute_time_pctg, 'compute', true, noFigure) },
    { id: 'communication', label: 'Communication (of kernel time)', numeric: true, value: (r) => r.communication ?? NaN,
      render: (r) => barCell(r.communication, 'communication', false, 'Unknown: no kernel breakdown for this rank.') },
    { id: 'non_compute', label: 'Non-compute (of GPU span)', numeric: true, value: (r) => r.temporal?.non_compute_time_pctg ?? NaN,
      render: (r) => figure(r.temporal?.non_compute_time_pctg, pct, '%', noFigure) },
    { id: 'overlap', label: 'Communication overlapped', numeric: true, value: (r) => r.overlap ?? NaN,
      render: (r) => figure(r.overlap, pct, '%', r.overlap === null ? noComm : noFigure) },
    { id: 'idle_time', label: 'Idle time', numeric: true, value: (r) => r.temporal?.idle_time_us ?? NaN,
      render: (r) => figure(r.temporal?.idle_time_us, fmtUs, 'us', noFigure) },
    { id: 'kernel_time', label: 'Kernel time', numeric: true, value: (r) => r.temporal?.kernel_time_us ?? NaN,
      render: (r) => figure(r.temporal?.kernel_time_us, fmtUs, 'us', noFigure) },
    { id: 'launches', label: 'Launches', numeric: true, value: (r) => r.launch?.launches ?? NaN, render: (r) => figure(r.launch?.launches, (x) => fmtNum(x), '', noFigure) },
    { id: 'launch_delay', label: 'Mean launch delay', numeric: true, value: (r) => r.launch?.mean_launch_delay_us ?? NaN,
      render: (r) => figure(r.launch?.mean_launch_delay_us, fmtUs, 'us', noFigure) },
  ];
  if (rows.some((r) => r.straggler)) {
    cols.push({ id: 'step_time', label: 'Step time', numeric: true, value: (r) => r.straggler?.step_time_us ?? NaN,
      render: (r) => figure(r.straggler?.step_time_us, fmtUs, 'us', noFigure) });
    cols.push({ id: 'straggler', label: 'Straggler', value: (r) => (r.straggler?.straggler ? 'yes' : r.straggler ? 'no' : ''),
      render: (r) => (r.straggler?.straggler ? el('strong', { class: 'ta-straggler', title: r.straggler.reason ?? '' }, 'yes')
        : r.straggler && isNum(r.straggler.step_time_us) ? 'no' : el('span', { class: 'unknown', title: 'Unknown: the rank\'s step time is unknown.' }, DASH)) });
  }
  const grid = new DataGrid(multi ? cols : cols.filter((c) => c.id !== 'host'), rows, { name: 'ta-ranks', initialSort: { id: 'rank', desc: false } });
  return grid.root;
}

function kernelTypesSection(d: TraceAnalysis, fw: Framework, label: (id: string) => string): HTMLElement {
  const kt = d.kernel_breakdown?.kernel_types ?? [];
  const ranks = [...new Set(kt.map(rankId))];
  const types = [...new Set(kt.map((k) => k.kernel_type))];
  const colors = seriesColors(types);
  const series = types.map((t, i) => ({ name: t, id: t, color: colors[i],
    values: ranks.map((r) => kt.find((k) => rankId(k) === r && k.kernel_type === t)?.sum_us ?? 0).map((us) => (isNum(us) ? us / 1000 : 0)) }));
  const top = (d.kernel_breakdown?.top_kernels ?? []);
  const grid = new DataGrid([
    { id: 'rank', label: 'Rank', numeric: true, value: (k) => k.rank, render: (k) => String(k.rank) },
    { id: 'host', label: 'Host', value: (k) => k.host ?? '' },
    { id: 'kernel_type', label: 'Kernel type', value: (k) => k.kernel_type },
    { id: 'name', label: 'Kernel', value: (k) => k.name, longText: true },
    { id: 'sum_us', label: 'Total', numeric: true, value: (k) => k.sum_us ?? NaN, render: (k) => figure(k.sum_us, fmtUs, 'us') },
    { id: 'count', label: 'Count', numeric: true, value: (k) => k.count ?? NaN, render: (k) => figure(k.count, (x) => fmtNum(x)) },
    { id: 'mean_us', label: 'Mean', numeric: true, value: (k) => k.mean_us ?? NaN, render: (k) => figure(k.mean_us, fmtUs, 'us') },
    { id: 'max_us', label: 'Max', numeric: true, value: (k) => k.max_us ?? NaN, render: (k) => figure(k.max_us, fmtUs, 'us') },
    { id: 'min_us', label: 'Min', numeric: true, value: (k) => k.min_us ?? NaN, render: (k) => figure(k.min_us, fmtUs, 'us') },
    { id: 'stddev_us', label: 'Std. dev.', numeric: true, value: (k) => k.stddev_us ?? NaN, render: (k) => figure(k.stddev_us, fmtUs, 'us') },
  ] as GridColumn<(typeof top)[number]>[], top, { name: 'ta-top-kernels', initialSort: { id: 'sum_us', desc: true } });
  return section('Kernel types and their overlap (ms per rank)', explain('kernels', fw),
    kt.length ? stackedColumns(ranks.map(label), series, { yLabel: 'milliseconds', name: 'ta-kernel-types' }) : message('empty', 'No GPU kernel in this profile.'),
    el('h3', {}, 'Top kernels per type'), grid.root);
}

function overlapSection(d: TraceAnalysis, fw: Framework, label: (id: string) => string): HTMLElement {
  const rows = d.comm_comp_overlap?.rows ?? [];
  const known = rows.filter((r) => isNum(r.comp_comm_overlap_pctg));
  const none = rows.filter((r) => !isNum(r.comp_comm_overlap_pctg)).map((r) => label(rankId(r)));
  return section('Communication overlapped by computation', explain('overlap', fw),
    known.length ? horizontalBars(known.map((r) => ({ name: label(rankId(r)), value: r.comp_comm_overlap_pctg as number })), { unit: '%', name: 'ta-overlap' })
      : message('empty', 'No rank ran a communication kernel, so there is no overlap to measure.'),
    none.length && known.length ? el('p', { class: 'hint' }, `No communication kernel (overlap "—"): ${none.join(', ')}.`) : null);
}

function idleSection(d: TraceAnalysis, fw: Framework, label: (id: string) => string): HTMLElement {
  const rows = d.idle_time_breakdown?.rows ?? [];
  const streamOf = (r: (typeof rows)[number]) => `${r.device === undefined ? '' : `GPU ${String(r.device)} `}stream ${String(r.stream)}`;
  const keyOf = (r: (typeof rows)[number]) => `${rankId(r)}#${streamOf(r)}`;
  const keys = [...new Set(rows.map(keyOf))];
  const cats = ['host_wait', 'kernel_wait', 'other'].filter((c) => rows.some((r) => r.idle_category === c));
  const colors = ['#b07aa1', '#f28e2b', '#bab0ac'];
  const series = cats.map((c) => ({ name: c, id: c, color: colors[['host_wait', 'kernel_wait', 'other'].indexOf(c)],
    values: keys.map((k) => { const v = rows.find((r) => keyOf(r) === k && r.idle_category === c)?.idle_time_us; return isNum(v) ? v / 1000 : 0; }) }));
  const names = keys.map((k) => { const at = k.indexOf('#'); return `${label(k.slice(0, at))} · ${k.slice(at + 1)}`; });
  const grid = new DataGrid([
    { id: 'rank', label: 'Rank', numeric: true, value: (r) => r.rank, render: (r) => String(r.rank) },
    { id: 'host', label: 'Host', value: (r) => r.host ?? '' },
    { id: 'stream', label: 'Stream', value: streamOf },
    { id: 'idle_category', label: 'Idle category', value: (r) => r.idle_category },
    { id: 'idle_time_us', label: 'Idle time', numeric: true, value: (r) => r.idle_time_us ?? NaN, render: (r) => figure(r.idle_time_us, fmtUs, 'us') },
    { id: 'idle_time_ratio', label: 'Share of the stream\'s idle time', numeric: true, value: (r) => r.idle_time_ratio ?? NaN,
      render: (r) => figure(r.idle_time_ratio, (x) => `${(x * 100).toFixed(1)}%`, 'fraction') },
  ] as GridColumn<(typeof rows)[number]>[], rows, { name: 'ta-idle', initialSort: { id: 'idle_time_us', desc: true } });
  return section('Idle time per stream (ms)', explain('idle', fw, thresholdsText(d.idle_time_breakdown?.thresholds)),
    rows.length ? stackedColumns(names.map((n) => middleEllipsis(n, 40)), series, { yLabel: 'milliseconds', name: 'ta-idle-breakdown' })
      : message('empty', 'No stream was idle between kernels, or the profile has no kernels.'), grid.root);
}

function stragglerSection(d: TraceAnalysis, fw: Framework): HTMLElement | null {
  const s = d.stragglers;
  if (!s || (!(s.rows ?? []).length && !(s.collectives ?? []).length)) return null;
  const band = s.band ?? {};
  const rule = typeof band.rule === 'string' ? band.rule : '';
  const flagged = (s.rows ?? []).filter((r) => r.straggler);
  const coll = s.collectives ?? [];
  const grid = new DataGrid([
    { id: 'rank', label: 'Rank', numeric: true, value: (c) => c.rank, render: (c) => String(c.rank) },
    { id: 'name', label: 'Collective', value: (c) => c.name, longText: true },
    { id: 'count', label: 'Count', numeric: true, value: (c) => c.count ?? NaN, render: (c) => figure(c.count, (x) => fmtNum(x)) },
    { id: 'bytes', label: 'Bytes', numeric: true, value: (c) => c.bytes ?? NaN, render: (c) => figure(c.bytes, whole, '', 'Unknown: the trace records no message size for this collective.') },
    { id: 'time_us', label: 'Time', numeric: true, value: (c) => c.time_us ?? NaN, render: (c) => figure(c.time_us, fmtUs, 'us') },
    { id: 'bus_bandwidth_gbps', label: 'Bus bandwidth (GB/s)', numeric: true, value: (c) => c.bus_bandwidth_gbps ?? NaN,
      render: (c) => figure(c.bus_bandwidth_gbps, (x) => fmtNum(x, 2), '', 'Unknown: the trace records no message size for this collective.') },
  ] as GridColumn<Collective>[], coll, { name: 'ta-collectives', initialSort: { id: 'time_us', desc: true } });
  return section('Stragglers', explain('stragglers', fw, rule ? `Band: ${rule}.` : ''),
    el('p', { id: 'ta-stragglers', 'data-flagged': String(flagged.length) }, flagged.length
      ? `Outside the band: ${flagged.map((r) => `${rankLabel(rankId(r), true)}${r.reason ? `: ${r.reason}` : ''}`).join('; ')}.` : 'No rank is outside the band.'),
    el('h3', {}, 'Collectives per rank'), coll.length ? grid.root : message('empty', 'No collective was recorded.'));
}
type Collective = NonNullable<NonNullable<TraceAnalysis['stragglers']>['collectives']>[number];

export async function renderTraceAnalysis(ctx: PageContext): Promise<void> {
  const d = await ctx.load<TraceAnalysis>();
  const fw = frameworkOf(d.framework);
  const ranks = d.ranks ?? [];
  const multi = ranks.length > 1;
  const label = (id: string) => rankLabel(id, multi);
  const root = ctx.root;
  root.setAttribute('data-framework', fw);
  for (const h of d.hosts_left_out ?? []) root.appendChild(message('info', `Host ${h.host} is left out: ${h.reason}`));
  const included = d.temporal_breakdown?.include_last_profiler_step;
  root.appendChild(section(`Ranks (${ranks.length})`, explain('temporal', fw,
    included === undefined ? '' : included ? 'The last profiler step is included.' : 'The last profiler step is left out.'), rankTable(d)));
  root.appendChild(kernelTypesSection(d, fw, label));
  root.appendChild(overlapSection(d, fw, label));
  root.appendChild(idleSection(d, fw, label));
  root.appendChild(queueSection(d, fw, label));
  root.appendChild(launchSection(d, fw, label));
  const strag = stragglerSection(d, fw);
  if (strag) root.appendChild(strag);
  root.appendChild(criticalPathSection(ctx, d, fw));
  root.appendChild(rooflineSection(d, fw));
}
