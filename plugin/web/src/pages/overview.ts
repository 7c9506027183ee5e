import { el, section, safeHtml, message } from '../dom';
import { tableAt, propsAt, DataTable, strings } from '../datatable';
import { PageContext } from '../page';
import { card, cards, stepChart } from './common';
import { pie } from '../charts';
import { gridFromDataTable } from '../table';

const PERCENT_CARDS: [string, string][] = [
  ['device_duty_cycle_percent', 'Device duty cycle'], ['device_idle_time_percent', 'Device idle time'],
  ['host_idle_time_percent', 'Host idle time'], ['device_tf_op_percent', 'Device time in framework ops'],
  ['host_tf_op_percent', 'Host time in framework ops'], ['mxu_utilization_percent', 'MXU / TensorCore utilization'],
  ['flop_rate_utilization_relative_to_roofline', 'FLOP rate vs roofline'],
  ['memory_bw_utilization_relative_to_hw_limit', 'Memory bandwidth vs limit'],
  ['device_op_time_eager_percent', 'Device op time (eager)'], ['host_op_time_eager_percent', 'Host op time (eager)'],
];

export async function renderOverview(ctx: PageContext): Promise<void> {
  const data = await ctx.load<unknown[]>();
  const analysis = tableAt(data, 0), steps = tableAt(data, 1), env = propsAt(data, 2), envTable = tableAt(data, 2);
  const reco = tableAt(data, 3), recoP = propsAt(data, 3), diagnostics = tableAt(data, 6);
  const ap = propsAt(data, 0), sp = propsAt(data, 1);
  const root = ctx.root;

  if (diagnostics && diagnostics.rows.length) root.appendChild(diagnosticsList(diagnostics));

  const summary: HTMLElement[] = [];
  if (sp.steptime_ms_average !== undefined) {
    summary.push(card('Average step time', `${sp.steptime_ms_average} ms`, sp.steptime_ms_standard_deviation !== undefined ? `σ ${sp.steptime_ms_standard_deviation} ms` : ''));
  }
  for (const [k, v] of Object.entries(sp)) {
    const m = /^(.*)_ms_average$/.exec(k);
    if (m && k !== 'steptime_ms_average') summary.push(card(`${m[1].replace(/_/g, ' ')} (avg)`, `${v} ms`));
  }
  for (const [key, label] of PERCENT_CARDS) if (ap[key] !== undefined) summary.push(card(label, ap[key]));
  root.appendChild(section('Performance summary', summary.length ? cards(...summary) : message('empty', 'The profile reports no summary figures.'),
    ap.remark_text ? el('p', { class: 'remark' }, safeHtml(ap.remark_text)) : null));

  root.appendChild(section('Step-time graph', steps ? stepChart(steps, 'overview-steps') : message('empty', 'No step-time data.'),
    el('p', { class: 'hint' }, 'Input-wait time is drawn in red.')));

  const p16 = Number.parseFloat(ap.device_compute_16bit_percent ?? ''), p32 = Number.parseFloat(ap.device_compute_32bit_percent ?? '');
  root.appendChild(section('Device compute precision', Number.isFinite(p16) || Number.isFinite(p32)
    ? el('div', { class: 'row' }, pie('Share of device compute time', [{ name: '16-bit', value: p16 || 0 }, { name: '32-bit', value: p32 || 0 }], { name: 'precision' }),
      cards(card('16-bit compute', ap.device_compute_16bit_percent ?? '—'), card('32-bit compute', ap.device_compute_32bit_percent ?? '—')))
    : message('empty', 'This profile does not report device compute precision.')));

  if (analysis) {
    root.appendChild(section('Top operations on the device', analysis.rows.length
      ? gridFromDataTable(analysis, { percentCols: ['selfTimePercent', 'cumulativeTimePercent'], name: 'top-ops' }).root
      : message('empty', 'No device operations were recorded.')));
  }

  root.appendChild(section('Run environment', runEnvironment(env, envTable)));
  root.appendChild(section('Recommendation for next step', recommendation(recoP, reco)));
}

function diagnosticsList(t: DataTable): HTMLElement {
  const sev = strings(t, 'severity'), msg = strings(t, 'message');
  return el('div', { class: 'diagnostics' }, ...sev.map((s, i) => el('div', { class: `msg msg-${s === 'ERROR' ? 'error' : 'info'}` }, `${s}: ${msg[i]}`)));
}

function runEnvironment(p: Record<string, string>, t: DataTable | null): HTMLElement {
  const labels: [string, string][] = [['host_count', 'Hosts'], ['task_count', 'Tasks'], ['device_type', 'Device type'],
    ['device_core_count', 'Device cores'], ['is_training', 'Training']];
  const items = labels.filter(([k]) => p[k] !== undefined).map(([k, l]) => card(l, p[k]));
  const box = el('div', {}, items.length ? cards(...items) : message('empty', 'No run environment recorded.'));
  if (t && t.rows.length) box.appendChild(gridFromDataTable(t, { name: 'hosts' }).root);
  return box;
}

function recommendation(p: Record<string, string>, t: DataTable | null): HTMLElement {
  const box = el('div', { class: 'recommendation' });
  if (p.bottleneck) box.appendChild(el('p', {}, el('b', {}, 'Bottleneck: '), p.bottleneck));
  for (const key of ['statement', 'device_collectives_statement', 'kernel_launch_statement', 'all_other_statement', 'precision_statement']) {
    if (p[key]) box.appendChild(el('p', {}, safeHtml(p[key])));
  }
  if (t && t.rows.length) {
    const types = strings(t, 'tip_type'), links = strings(t, 'link'), desc = strings(t, 'description');
    const groups = new Map<string, HTMLElement>();
    types.forEach((type, i) => {
      if (!groups.has(type)) groups.set(type, el('ul'));
      groups.get(type)!.appendChild(el('li', {}, safeHtml(links[i]), desc[i] ? el('span', { class: 'hint' }, ` — ${desc[i]}`) : null));
    });
    for (const [type, list] of groups) box.appendChild(el('div', {}, el('h3', {}, `${type} tips`), list));
  }
  if (!box.firstChild) box.appendChild(message('empty', 'No recommendation for this profile.'));
  return box;
}
