import { el, section, safeHtml, message } from '../dom';
import { DataTable, isTable, strings, cellText } from '../datatable';
import { PageContext } from '../page';
import { card, cards, stepChart } from './common';
import { pie } from '../charts';
import { fmtNum } from '../format';
import { gridFromDataTable } from '../table';

// Both the xprof (5 slots) and the older (step table first) layouts: find tables by their columns.
function findTable(data: unknown, test: (t: DataTable) => boolean): DataTable | null {
  const list = Array.isArray(data) ? data : [data];
  return (list.find((t) => isTable(t) && test(t)) as DataTable | undefined) ?? null;
}
const hasCol = (t: DataTable, id: string) => t.cols.some((c) => c.id === id);

const HOST_CATEGORIES: [string, string][] = [
  ['enqueue_us', 'Enqueuing data'], ['demanded_file_read_us', 'Reading data on demand'],
  ['advanced_file_read_us', 'Reading data in advance'], ['preprocessing_us', 'Preprocessing'],
  ['unclassified_nonequeue_us', 'Other input'],
];

export async function renderInputPipeline(ctx: PageContext): Promise<void> {
  const data = await ctx.load<unknown>();
  const steps = findTable(data, (t) => hasCol(t, 'stepnum') || hasCol(t, 'stepname'));
  const ops = findTable(data, (t) => hasCol(t, 'opName'));
  const links = findTable(data, (t) => t.cols.length === 1 && t.cols[0].id === 'link');
  const diagnostics = findTable(data, (t) => hasCol(t, 'severity'));
  // TPU: per step (one column each), the core that waited longest for input.
  const maxInfeedCores = findTable(data, (t) => hasCol(t, 'index'));
  const root = ctx.root;
  if (!steps && !ops) { root.appendChild(message('empty', 'This profile has no input-pipeline data.')); return; }
  const sp = steps?.p ?? {};

  if (diagnostics) for (const [i, s] of strings(diagnostics, 'severity').entries()) {
    root.appendChild(el('div', { class: `msg msg-${s === 'ERROR' ? 'error' : 'info'}` }, `${s}: ${strings(diagnostics, 'message')[i]}`));
  }

  const conclusion = sp.input_conclusion ?? sp.summary_conclusion ?? '';
  root.appendChild(section('Summary', conclusion ? el('p', { class: 'conclusion' }, safeHtml(conclusion)) : message('empty', 'No input-bound classification.'),
    // GPU/CPU: the other bottlenecks of the step time, each said in words (empty when it is not one).
    ...['kernel_launch_statement', 'device_collectives_statement', 'all_other_statement']
      .filter((k) => sp[k]).map((k) => el('p', { class: 'bottleneck' }, safeHtml(sp[k]))),
    sp.summary_nextstep ? el('p', { class: 'hint' }, safeHtml(sp.summary_nextstep)) : null,
    sp.output_conclusion ? el('p', {}, safeHtml(sp.output_conclusion)) : null));

  if (steps) {
    // Without steps the server's 0.0 figures mean "unknown".
    const noSteps = steps.rows.length === 0 ? 'No steps were found in this profile (no step marker), so the step time is unknown.' : undefined;
    const stat = (k: string, label: string, unit: string) =>
      card(label, sp[k] !== undefined ? `${sp[k]}${unit}` : '', '', { key: k, unknown: noSteps, json: sp[k], jsonUnit: unit.trim() });
    const stats = cards(stat('steptime_ms_average', 'Average step time', ' ms'), stat('steptime_ms_standard_deviation', 'Standard deviation', ' ms'),
      stat('steptime_ms_minimum', 'Minimum', ' ms'), stat('steptime_ms_maximum', 'Maximum', ' ms'));
    const infeed = sp.infeed_percent_average !== undefined
      ? cards(stat('infeed_percent_average', 'Input wait (avg)', '%'), stat('infeed_percent_standard_deviation', 'Input wait (σ)', '%'),
        stat('infeed_percent_minimum', 'Input wait (min)', '%'), stat('infeed_percent_maximum', 'Input wait (max)', '%'))
      : null;
    // A CPU-only run has no device side: its steps are the host's.
    const cpuOnly = sp.hardware_type === 'CPU_ONLY';
    root.appendChild(section(cpuOnly ? 'Step time (host)' : 'Device-side: step time',
      cpuOnly ? el('p', { class: 'hint', id: 'input-cpu-only-note' }, 'This run has no accelerator (CPU only): the steps are the host\'s.') : null,
      stepChart(steps, 'input-steps'), stats, infeed));
  }

  if (maxInfeedCores && maxInfeedCores.cols.length > 1 && maxInfeedCores.rows.length === 2) {
    const steps = maxInfeedCores.cols.slice(1).map((_, i) => i + 1);
    root.appendChild(section('Device-side: core waiting longest for input',
      el('table', { class: 'kv', id: 'max-infeed-cores' },
        el('tr', {}, el('th', {}, 'Step'), el('th', {}, 'Core')),
        ...steps.map((col) => el('tr', {}, el('td', {}, cellText(maxInfeedCores, 0, col)),
          // "unknown": no core of the step waited for input.
          el('td', {}, cellText(maxInfeedCores, 1, col)))))));
  }

  // A PyTorch run's input is its DataLoader: its time per step, not tf.data's host stages (which it has none of).
  const pytorch = sp.framework === 'PyTorch';
  if (steps && pytorch) root.appendChild(section('Host-side: DataLoader time per step', dataLoaderSteps(steps)));

  if (ops && !pytorch) {
    const op = ops.p ?? {};
    const slices = HOST_CATEGORIES.filter(([k]) => op[k] !== undefined).map(([k, name]) => ({ name, key: k, value: Number(op[k]) / 1000 }));
    const total = slices.reduce((s, x) => s + (Number.isFinite(x.value) ? x.value : 0), 0);
    root.appendChild(section('Host-side: input time breakdown', slices.length
      ? el('div', { class: 'row' }, pie('Input time on the host (ms)', slices, { name: 'host-breakdown' }),
        cards(...slices.map((s) => card(s.name, `${fmtNum(s.value, 3)} ms`, total > 0 ? `${((s.value / total) * 100).toFixed(1)}%` : '', { key: s.key, json: op[s.key], jsonUnit: 'us' }))))
      : message('empty', 'No host-side input breakdown.')));
    root.appendChild(section('Host-side: input operations', ops.rows.length
      ? gridFromDataTable(ops, { percentCols: ['timeInPercent', 'selfTimeInPercent'], initialSort: { id: 'selfTimeInMs', desc: true }, name: 'input-ops',
        chooseColumns: true, leadColumns: ['opName', 'selfTimeInMs', 'selfTimeInPercent', 'count', 'timeInMs', 'timeInPercent'] }).root
      : message('empty', 'No input operations were found on the host.')));
  }

  if (links && links.rows.length) {
    root.appendChild(section(pytorch ? 'Recommendations for the DataLoader' : 'Recommendations',
      el('ul', {}, ...strings(links, 'link').map((l) => el('li', {}, safeHtml(l))))));
  }
}

// Each step's DataLoader time beside its step time (torch-tb-profiler's DataLoader category).
function dataLoaderSteps(steps: DataTable): HTMLElement {
  const sp = steps.p ?? {};
  const share = card('DataLoader share of the average step', sp.dataloader_percent === 'unknown' ? '' : sp.dataloader_percent ?? '', '',
    { key: 'dataloader_percent', json: sp.dataloader_percent, jsonUnit: '', unknown: sp.dataloader_percent === 'unknown' ? 'Unknown: no steps were found.' : undefined,
      tooltip: 'Time in enumerate(DataLoader)#…__next__ not covered by GPU work or runtime calls, as a share of the average step.' });
  const keep = new Set(['stepnum', 'DataLoader', 'stepTimeMs']);
  const table: DataTable = { ...steps, cols: steps.cols.filter((c) => keep.has(c.id)),
    rows: steps.rows.map((r) => ({ c: steps.cols.map((c, i) => ({ id: c.id, v: r.c?.[i] ?? null })).filter((x) => keep.has(x.id)).map((x) => x.v) })) };
  return el('div', {}, cards(share), gridFromDataTable(table, { name: 'dataloader-steps' }).root);
}
