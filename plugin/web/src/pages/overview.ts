import { el, section, safeHtml, message } from '../dom';
import { tableAt, propsAt, DataTable, strings } from '../datatable';
import { PageContext, toolLink, baseToolName } from '../page';
import { card, cards, stepChart, NO_FLOPS } from './common';
import { pie } from '../charts';
import { gridFromDataTable } from '../table';

// The performance summary follows xprof's: the step time first, then either the TPU hardware figures (from the
// analysis table) or the generic step-time breakdown (from the step table, keys *_ms_avg / *_ms_sdv), then
// op placement, eager share and precision. A figure that does not describe the run's device is not shown.
interface Figure { label: string; key: string; sdv?: string; unit?: string; better?: 'higher' | 'lower'; tooltip?: string; whyUnknown?: string }

const GENERIC_BREAKDOWN: Figure[] = [
  { label: 'All others time', key: 'other_time_ms_avg', sdv: 'other_time_ms_sdv', unit: 'ms' },
  { label: 'Compilation time', key: 'compile_time_ms_avg', sdv: 'compile_time_ms_sdv', unit: 'ms' },
  { label: 'Output time', key: 'outfeed_time_ms_avg', sdv: 'outfeed_time_ms_sdv', unit: 'ms' },
  { label: 'Input time', key: 'infeed_time_ms_avg', sdv: 'infeed_time_ms_sdv', unit: 'ms' },
  { label: 'Kernel launch time', key: 'kernel_launch_time_ms_avg', sdv: 'kernel_launch_time_ms_sdv', unit: 'ms' },
  { label: 'Host compute time', key: 'host_compute_time_ms_avg', sdv: 'host_compute_time_ms_sdv', unit: 'ms' },
  { label: 'Device collective communication time', key: 'device_collectives_time_ms_avg', sdv: 'device_collectives_time_ms_sdv', unit: 'ms' },
  { label: 'Device to device time', key: 'device_to_device_time_ms_avg', sdv: 'device_to_device_time_ms_sdv', unit: 'ms' },
  { label: 'Device compute time', key: 'device_compute_time_ms_avg', sdv: 'device_compute_time_ms_sdv', unit: 'ms' },
];

// Older TPU step tables carry their own breakdown of the average step (xprof's children of "Average step time").
const STEP_CHILDREN: Figure[] = [
  { label: 'Idle', key: 'idle_ms_average', unit: 'ms' }, { label: 'Input', key: 'input_ms_average', unit: 'ms' },
  { label: 'Compute', key: 'compute_ms_average', unit: 'ms' },
  { label: 'TensorCore compute', key: 'tc_compute_ms_average', unit: 'ms' }, { label: 'TensorCore idle', key: 'tc_idle_ms_average', unit: 'ms' },
  { label: 'TensorCore infeed', key: 'tc_infeed_ms_average', unit: 'ms' }, { label: 'TensorCore outfeed', key: 'tc_outfeed_ms_average', unit: 'ms' },
  { label: 'SparseCore compute', key: 'scv0_compute_ms_average', unit: 'ms' }, { label: 'SparseCore infeed', key: 'scv0_infeed_ms_average', unit: 'ms' },
  { label: 'Host transfer', key: 'host_transfer_ms_average', unit: 'ms' },
];

const TPU_FIGURES: Figure[] = [
  { label: 'Utilization of TPU matrix units', key: 'mxu_utilization_percent', better: 'higher',
    tooltip: 'FLOPS utilization measured by the hardware performance counters of the matrix units.' },
  { label: "Compared to program's optimal FLOPS", key: 'flop_rate_utilization_relative_to_roofline', better: 'higher',
    tooltip: "Performance compared to the program's optimal, given its mix of floating-point and memory operations (roofline)." },
  { label: 'TPU duty cycle', key: 'device_duty_cycle_percent', better: 'higher', tooltip: 'Percentage of the device time that is busy.' },
  { label: 'Memory bandwidth utilization', key: 'memory_bw_utilization_relative_to_hw_limit', better: 'higher',
    tooltip: 'Percentage of the peak device memory bandwidth that is used.' },
];

// torch-tb-profiler's GPU summary, sent for PyTorch (Kineto) runs only (extra properties of the analysis table).
const TORCH_GPU_FIGURES: Figure[] = [
  { label: 'GPU utilization', key: 'gpu_utilization_percent', better: 'higher',
    whyUnknown: 'Unknown: the trace has no steps or no kernels to measure GPU busy time over.',
    tooltip: 'Share of the steps\' time in which a kernel ran on the GPU (mean over the GPUs).' },
  { label: 'Est. SM efficiency', key: 'sm_efficiency_percent', better: 'higher',
    whyUnknown: 'Unknown: the trace records no "blocks per SM" for its kernels.',
    tooltip: 'Share of the steps\' time the streaming multiprocessors were busy, estimated from each kernel\'s blocks per SM.' },
  { label: 'Est. achieved occupancy', key: 'achieved_occupancy_percent', better: 'higher',
    whyUnknown: 'Unknown: the trace records no occupancy for its kernels (ROCm traces have none).',
    tooltip: 'Kernel-time-weighted mean of the kernels\' estimated achieved occupancy.' },
];

const AFTER_FIGURES: Figure[] = [
  { label: 'Framework ops on host', key: 'host_tf_op_percent', whyUnknown: 'Unknown: no framework op ran on the host or the device.', tooltip: 'Share of framework op executions placed on the host (generally desired to have more ops on the device).' },
  { label: 'Framework ops on device', key: 'device_tf_op_percent', whyUnknown: 'Unknown: no framework op ran on the host or the device.', tooltip: 'Share of framework op executions placed on the device (generally desired to have more ops on the device).' },
  { label: 'Host op time in eager mode', key: 'host_op_time_eager_percent', better: 'lower', whyUnknown: 'Unknown: no framework op time was recorded on the host.',
    tooltip: 'Out of the op execution time on the host, excluding idle time, the share that used eager execution.' },
  { label: 'Device op time in eager mode', key: 'device_op_time_eager_percent', better: 'lower', whyUnknown: 'Unknown: no framework op time was recorded on the device.',
    tooltip: 'Out of the op execution time on the device, excluding idle time, the share that used eager execution.' },
  { label: 'Host idle time', key: 'host_idle_time_percent', better: 'lower', whyUnknown: 'Unknown: no host op time was recorded, so there is no host time to divide.', tooltip: 'Share of the host time that is idle.' },
  { label: 'Device idle time', key: 'device_idle_time_percent', better: 'lower', whyUnknown: 'Unknown: no device time was traced.', tooltip: 'Share of the device time that is idle.' },
];

// A PyTorch run's step breakdown: torch-tb-profiler's categories, the step table's columns (ms per step), averaged here.
const TORCH_CATEGORY_TOOLTIPS: Record<string, string> = {
  Kernel: 'Time a compute kernel ran on the GPU.', Memcpy: 'Time a memory copy ran on the GPU (and no kernel).',
  Memset: 'Time a memory set ran on the GPU (and no kernel or copy).',
  Communication: 'Time in collectives (NCCL kernels and the host\'s collective calls) not covered by the above.',
  Runtime: 'Time in CUDA runtime calls on the host (kernel launches, synchronizations) not covered by the above.',
  DataLoader: 'Time in the DataLoader\'s __next__ not covered by the above.',
  'CPU Exec': 'Time in operators and record_function ranges on the host not covered by the above.',
  Other: 'The rest of the step.',
};

function torchBreakdown(steps: DataTable): HTMLElement[] {
  const ids = (steps.p?.step_time_graph_column_ids ?? '').split(',').map((x) => x.trim()).filter((x) => x && x !== 'stepnum');
  return ids.map((id) => {
    const served = steps.p?.[`avg_ms_${id}`];
    const mean = served === undefined ? NaN : Number(served);
    return card(id, Number.isFinite(mean) ? `${mean.toFixed(3)} ms` : '', '', { key: id, tooltip: TORCH_CATEGORY_TOOLTIPS[id],
      unknown: Number.isFinite(mean) ? undefined : 'No steps were found in this profile, so the step time is unknown.',
      json: Number.isFinite(mean) ? mean : undefined, jsonUnit: 'ms' });
  });
}

function figureCard(f: Figure, p: Record<string, string>, unknown?: string): HTMLElement {
  const v = p[f.key];
  const sdv = f.sdv ? p[f.sdv] : undefined;
  const notes = [sdv && sdv !== 'nan' ? `σ = ${sdv} ${f.unit ?? ''}`.trim() : '', f.better ? `${f.better} is better` : ''].filter(Boolean);
  // xprof writes "unknown" for a figure it cannot compute (a share of nothing, no traced device).
  if (v === 'unknown') {
    return card(f.label, '', '', { key: f.key, tooltip: f.tooltip,
      unknown: unknown ?? f.whyUnknown ?? 'Unknown: the server reports this figure as unknown (the profile has nothing it is computed from).' });
  }
  const value = v === undefined || v === '' ? '' : `${v}${f.unit ? ' ' + f.unit : ''}`;
  return card(f.label, value, notes.join(' · '), { key: f.key, tooltip: f.tooltip, unknown: value ? unknown : unknown ?? 'The server did not report this figure.',
    json: v, jsonUnit: f.unit ?? '' });
}

export async function renderOverview(ctx: PageContext): Promise<void> {
  const data = await ctx.load<unknown[]>();
  const analysis = tableAt(data, 0), steps = tableAt(data, 1), env = propsAt(data, 2), envTable = tableAt(data, 2);
  const reco = tableAt(data, 3), recoP = propsAt(data, 3), diagnostics = tableAt(data, 6);
  const ap = propsAt(data, 0), sp = propsAt(data, 1);
  const root = ctx.root;
  const isTpu = sp.hardware_type === 'TPU';
  // A step table without rows means no step marker was found: every per-step figure is unknown, not 0.
  const noSteps = steps !== null && steps.rows.length === 0 ? 'No steps were found in this profile (no step marker), so the step time is unknown.' : undefined;

  if (diagnostics && diagnostics.rows.length) root.appendChild(diagnosticsList(diagnostics));

  const summary: HTMLElement[] = [];
  if (sp.steptime_ms_average !== undefined || steps) {
    summary.push(figureCard({ label: 'Average step time', key: 'steptime_ms_average', sdv: 'steptime_ms_standard_deviation', unit: 'ms', better: 'lower',
      tooltip: 'The step time averaged over all steps sampled.' }, sp, noSteps));
  }
  for (const f of STEP_CHILDREN) if (sp[f.key] !== undefined) summary.push(figureCard(f, sp, noSteps));
  // A utilization of exactly 0 on a device that was busy was not measured (no hardware counters in the profile).
  const busy = 100 - Number.parseFloat(ap.device_idle_time_percent ?? '100');
  const unmeasured = (key: string) => (Number.parseFloat(ap[key] ?? '') === 0 && busy > 0
    ? `Not measured: the server reports ${ap[key]} although the device was busy ${busy.toFixed(1)}% of the time; the profile has no counters for this figure.`
    : undefined);
  // A run without an accelerator has no device: its device figures describe nothing and are left out.
  const cpuOnly = sp.hardware_type === 'CPU_ONLY';
  const describesRun = (f: Figure) => !cpuOnly || !/^(device_|kernel_launch_)/.test(f.key);
  // The server says the run is PyTorch's: its pages speak PyTorch (torch-tb-profiler's categories, no eager mode).
  const pytorch = sp.framework === 'PyTorch';
  const deviceFigures = isTpu ? TPU_FIGURES.filter((f) => ap[f.key] !== undefined).map((f) => figureCard(f, ap, unmeasured(f.key)))
    : pytorch && steps ? torchBreakdown(steps)
    : GENERIC_BREAKDOWN.filter((f) => sp[f.key] !== undefined && describesRun(f)).map((f) => figureCard(f, sp, noSteps));
  for (const f of TORCH_GPU_FIGURES) if (ap[f.key] !== undefined) deviceFigures.push(figureCard(f, ap));
  const eager = (f: Figure) => /eager/.test(f.key);
  for (const f of AFTER_FIGURES) if (ap[f.key] !== undefined && describesRun(f) && !(pytorch && eager(f))) deviceFigures.push(figureCard(f, ap));
  root.appendChild(section('Performance summary', summary.length ? cards(...summary) : null,
    deviceFigures.length ? cards(...deviceFigures) : null,
    !summary.length && !deviceFigures.length ? message('empty', 'The profile reports no summary figures.') : null,
    cpuOnly ? el('p', { class: 'hint', id: 'cpu-only-note' }, 'This run has no accelerator (CPU only): device figures are left out.') : null,
    ap.gpu_utilization_percent !== undefined && ap.device_idle_time_percent !== undefined
      ? el('p', { class: 'hint', id: 'gpu-util-vs-idle' }, 'GPU utilization is the share of the steps\' time in which a kernel ran; ' +
        'device idle time is the share of the whole traced span in which no kernel, copy or set ran, so the two need not add up to 100 %.') : null,
    ap.remark_text ? el('p', { class: 'remark' }, safeHtml(ap.remark_text)) : null));

  root.appendChild(section('Step-time graph', steps ? stepChart(steps, 'overview-steps') : message('empty', 'No step-time data.'),
    steps && steps.rows.length ? el('p', { class: 'hint' }, 'Each column is one step, stacked by where its time went (milliseconds); input time is drawn in red.') : null));

  // Device panels only where there is a device: the note above says device figures are left out.
  if (!cpuOnly) root.appendChild(section('Device compute precision', precision(ap)));

  if (analysis && !cpuOnly) {
    root.appendChild(section('Top operations on the device', analysis.rows.length
      ? gridFromDataTable(analysis, { percentCols: ['selfTimePercent', 'cumulativeTimePercent'], name: 'top-ops',
        zeroMeansUnknown: { flopRate: NO_FLOPS } }).root
      : message('empty', 'No device operations were recorded.')));
  }

  root.appendChild(section('Run environment', runEnvironment(env, envTable, cpuOnly)));
  root.appendChild(section('Recommendation for next step', recommendation(recoP, reco, ctx)));
}

// 16/32-bit shares only mean something when some device compute time was classified by precision.
function precision(ap: Record<string, string>): HTMLElement {
  const p16 = Number.parseFloat(ap.device_compute_16bit_percent ?? ''), p32 = Number.parseFloat(ap.device_compute_32bit_percent ?? '');
  if (!(p16 > 0 || p32 > 0)) {
    return message('empty', 'Unknown: no device compute time of this profile was classified as 16-bit or 32-bit.');
  }
  const f16: Figure = { label: '16-bit compute', key: 'device_compute_16bit_percent', tooltip: 'Share of the device compute time spent in 16-bit ops.' };
  const f32: Figure = { label: '32-bit compute', key: 'device_compute_32bit_percent', tooltip: 'Share of the device compute time spent in 32-bit ops.' };
  return el('div', { class: 'row' }, pie('Share of device compute time', [{ name: '16-bit', value: p16 || 0 }, { name: '32-bit', value: p32 || 0 }], { name: 'precision' }),
    cards(figureCard(f16, ap), figureCard(f32, ap)));
}

function diagnosticsList(t: DataTable): HTMLElement {
  const sev = strings(t, 'severity'), msg = strings(t, 'message');
  return el('div', { class: 'diagnostics' }, ...sev.map((s, i) => el('div', { class: `msg msg-${s === 'ERROR' ? 'error' : 'info'}` }, `${s}: ${msg[i]}`)));
}

function runEnvironment(p: Record<string, string>, t: DataTable | null, cpuOnly: boolean): HTMLElement {
  const items: HTMLElement[] = [];
  const plain: [string, string][] = [['host_count', 'Hosts'], ['task_count', 'Tasks'], ['device_type', 'Device type'], ['device_core_count', 'Device cores'],
    ['batch_size', 'Batch size']];
  for (const [k, l] of plain) {
    if (p[k] === undefined) continue;
    // A run without an accelerator has no device cores to count: its 0 is "none known", not a figure.
    const noDevice = k === 'device_core_count' && cpuOnly && Number(p[k]) === 0 ? 'Unknown: this run has no accelerator, so it has no device cores.' : undefined;
    items.push(card(l, p[k] === 'unknown' ? '' : p[k], '', { key: k, json: p[k], unknown: noDevice }));
  }
  if (p.is_training !== undefined) {
    // xprof infers training from the HLO modules' op names (gradient name scopes,
    // JAX's transpose(jvp(…))); without a module the server sends "" (unknown).
    items.push(card('Is training job', p.is_training, '', { key: 'is_training',
      tooltip: 'true when an HLO module of this profile computes gradients (TensorFlow "gradients"/"gradient_tape" name scopes, JAX "transpose(jvp(…))"); false when its modules do not.',
      unknown: p.is_training === '' ? 'Unknown: the profile has no HLO module to tell training from inference by.' : undefined }));
  }
  // xprof's names; the start is the profiler session's wall-clock start, in UTC.
  if (p.profile_start_time !== undefined) {
    items.push(card('Profile start time (UTC)', p.profile_start_time, '', { key: 'profile_start_time',
      tooltip: 'Wall-clock time the profiler session started (RFC 3339, UTC).' }));
  }
  // Legacy files write the epoch and 0 ms when the capture time was not recorded.
  if (p.profile_time !== undefined) {
    items.push(card('Profile start time', /^19(69|70)-/.test(p.profile_time) ? '' : p.profile_time, '', { key: 'profile_time',
      unknown: /^19(69|70)-/.test(p.profile_time) ? `The profile records no capture time (it says ${p.profile_time}).` : undefined }));
  }
  if (p.profile_duration_ms !== undefined) {
    // A duration sent beside a start time is measured (it may round down to 0 ms); alone, 0 means not recorded.
    const unrecorded = Number(p.profile_duration_ms) === 0 && p.profile_start_time === undefined;
    items.push(card('Profile duration', unrecorded ? '' : `${p.profile_duration_ms} ms`, '', { key: 'profile_duration_ms', json: p.profile_duration_ms, jsonUnit: 'ms',
      tooltip: 'Length of the profiler session, whole milliseconds.',
      unknown: unrecorded ? 'The profile records no capture duration (it says 0 ms).' : undefined }));
  }
  const box = el('div', {}, items.length ? cards(...items) : message('empty', 'No run environment recorded.'));
  if (t && t.rows.length) {
    // Columns no host fills (an XSpace records no command line, job start or BNS address) are left out, not shown blank.
    const empty = t.cols.filter((_, i) => t.rows.every((r) => r.c?.[i]?.v === undefined || r.c[i]!.v === null || r.c[i]!.v === '')).map((c) => c.id);
    box.appendChild(gridFromDataTable(t, { name: 'hosts', hide: empty }).root);
  }
  return box;
}

// Tips name a tool first ("trace_viewer (look at …)"): such a tip is shown only when the run has that tool, as a link.
export function tipTool(link: string): string | null {
  const m = /^([a-z][a-z0-9_]*_[a-z0-9_]+) \(/.exec(link);
  return m ? m[1] : null;
}

function recommendation(p: Record<string, string>, t: DataTable | null, ctx: PageContext): HTMLElement {
  const box = el('div', { class: 'recommendation' });
  if (p.bottleneck) box.appendChild(el('p', {}, el('b', {}, 'Bottleneck: '), p.bottleneck));
  for (const key of ['statement', 'device_collectives_statement', 'kernel_launch_statement', 'all_other_statement', 'precision_statement',
    'eager_statement_html', 'tf_function_statement_html', 'outside_compilation_statement_html']) {
    if (p[key]) box.appendChild(el('p', {}, safeHtml(p[key])));
  }
  const missing = new Set<string>();
  if (t && t.rows.length) {
    const types = strings(t, 'tip_type'), links = strings(t, 'link'), desc = strings(t, 'description');
    const groups = new Map<string, HTMLElement>();
    types.forEach((type, i) => {
      const tool = tipTool(links[i]);
      const have = tool === null ? undefined : ctx.tools.find((x) => sameTool(baseToolName(x), tool));
      if (tool !== null && have === undefined) { missing.add(tool); return; }
      if (!groups.has(type)) groups.set(type, el('ul', { 'data-tip-type': type }));
      const content = tool !== null && have !== undefined
        ? [toolLink(ctx.sel, have, tool), links[i].slice(tool.length)] : [safeHtml(links[i])];
      groups.get(type)!.appendChild(el('li', { class: 'tip' }, ...content, desc[i] ? el('span', { class: 'hint' }, ` — ${desc[i]}`) : null));
    });
    for (const [type, list] of groups) box.appendChild(el('div', {}, el('h3', {}, `${type} tips`), list));
  }
  if (missing.size) {
    box.appendChild(el('p', { class: 'hint', id: 'tips-left-out' },
      `Tips naming tools this run does not have were left out: ${Array.from(missing).join(', ')}.`));
  }
  if (!box.firstChild) box.appendChild(message('empty', 'No recommendation for this profile.'));
  return box;
}

// framework_op_stats and tensorflow_stats are one tool under two names.
function sameTool(a: string, b: string): boolean {
  const canon = (x: string) => (x === 'tensorflow_stats' ? 'framework_op_stats' : x);
  return canon(a) === canon(b);
}
