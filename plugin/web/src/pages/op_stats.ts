import { el, section, message, clear } from '../dom';
import { tableAt, DataTable, strings, numbers } from '../datatable';
import { PageContext, csvButton } from '../page';
import { pie } from '../charts';
import { gridFromDataTable } from '../table';
import { NO_FLOPS } from './common';

const PERCENT_COLS = ['device_total_self_time_percent', 'device_cumulative_total_self_time_percent', 'host_total_self_time_percent',
  'host_cumulative_total_self_time_percent', 'Host_cumulative_total_self_time_percent', 'gpu_tensorcore_utilization'];

// The server lists at most this many operations on each side (device, host), as xprof does.
const OP_CAP = 500;
const NOT_LISTED = 'Not listed (beyond the op cap)';

// Pie slices are the same fractions as the table's "Total self-time on Device/Host (%)" column, summed per key;
// what the listed ops leave of 100% belongs to ops the server did not list.
function shares(keys: string[], fractions: number[], where: boolean[]): { name: string; value: number }[] {
  const m = new Map<string, number>();
  let listed = 0;
  keys.forEach((k, i) => {
    if (!where[i] || !Number.isFinite(fractions[i])) return;
    m.set(k, (m.get(k) ?? 0) + fractions[i]);
    listed += fractions[i];
  });
  const out = Array.from(m, ([name, value]) => ({ name, value }));
  if (out.length && listed < 0.9995) out.push({ name: NOT_LISTED, value: 1 - listed });
  return out;
}

export async function renderOpStats(ctx: PageContext): Promise<void> {
  const data = await ctx.load<unknown>();
  const withIdle = tableAt(data, 0), withoutIdle = tableAt(data, 1) ?? withIdle;
  if (!withIdle) { ctx.root.appendChild(message('empty', 'No framework op statistics in this profile.')); return; }

  const includeIdle = el('input', { type: 'checkbox', id: 'include-idle' });
  includeIdle.checked = true;
  const controls = el('div', { class: 'toolbar' }, el('label', {}, includeIdle, ' Include IDLE time in statistics'), csvButton(ctx.sel));
  const body = el('div');
  ctx.root.append(controls, body);

  const draw = (t: DataTable) => {
    clear(body);
    const where = strings(t, 'host_or_device');
    const names = strings(t, 'operation'), types = strings(t, 'type');
    const isHost = where.map((w) => /host/i.test(w)), isDevice = where.map((w) => /device/i.test(w));
    const deviceShare = numbers(t, 'device_total_self_time_percent'), hostShare = numbers(t, 'host_total_self_time_percent');
    const p = t.p ?? {};
    const header: (HTMLElement | string)[] = [];
    // "Unknown" architecture says nothing; the task follows xprof's rule, which the tooltip spells out.
    if (p.architecture_type && p.architecture_type !== 'Unknown') header.push(`Architecture: ${p.architecture_type}`);
    if (p.task_type) {
      // A PyTorch run is told its own rule, in its own words.
      const rule = p.framework === 'PyTorch'
        ? 'Classified as the overview\'s "Is training job": Training when the trace records an autograd backward op '
          + '(AddmmBackward0, or autograd::engine::evaluate_function: …); otherwise Inference.'
        : 'Classified by xprof\'s rule, as the overview\'s "Is training job": Training when an op '
          + 'computes gradients (a TensorFlow gradients/gradient_tape scope, a JAX transpose( scope), read from the HLO programs '
          + 'or, without them, the recorded ops; otherwise Inference.';
      header.push(el('span', { id: 'task-type', title: rule }, `Task (by op names): ${p.task_type}`));
    }
    if (header.length) body.appendChild(el('p', { class: 'hint', id: 'op-stats-header' }, ...header.flatMap((h, i) => (i ? [' · ', h] : [h]))));
    // The cap applies before IDLE is taken out, so count on the table with IDLE.
    const sides = strings(withIdle, 'host_or_device');
    const deviceRows = sides.filter((w) => /device/i.test(w)).length, hostRows = sides.filter((w) => /host/i.test(w)).length;
    const capped = [deviceRows >= OP_CAP ? 'device' : '', hostRows >= OP_CAP ? 'host' : ''].filter(Boolean);
    if (capped.length) {
      body.appendChild(el('p', { class: 'msg msg-info', id: 'op-cap' }, `The server lists at most ${OP_CAP} operations for each of the device and the host `
        + `(as xprof does); this profile has more on the ${capped.join(' and the ')}, so the table stops at ${OP_CAP} there and the pies `
        + `show the remaining share as "${NOT_LISTED}".`));
    }
    body.appendChild(section('Self-time distribution',
      el('div', { class: 'pies' },
        pie('Device: self-time per op type', shares(types, deviceShare, isDevice), { name: 'device-type' }),
        pie('Device: self-time per op', shares(names, deviceShare, isDevice), { name: 'device-op' }),
        pie('Host: self-time per op type', shares(types, hostShare, isHost), { name: 'host-type' }),
        pie('Host: self-time per op', shares(names, hostShare, isHost), { name: 'host-op' }))));
    body.appendChild(section('Operations', t.rows.length
      ? gridFromDataTable(t, { percentCols: PERCENT_COLS, initialSort: { id: 'rank', desc: false }, name: 'op-stats', filterPlaceholder: 'Filter by op name, type or host/device…',
        zeroMeansUnknown: { measured_flop_rate: NO_FLOPS, model_flop_rate: NO_FLOPS, operational_intensity: NO_FLOPS,
          measured_memory_bw: 'Unknown: the profile records no bytes accessed for these ops, so the server reports 0 for all of them.' },
        notApplicable: otherSideShares(t), chooseColumns: true,
        leadColumns: ['rank', 'host_or_device', 'type', 'operation', 'occurrences', 'total_self_time', 'avg_self_time', 'total_time', 'avg_time'] }).root
      : message('empty', 'No operations were recorded.')));
  };
  includeIdle.addEventListener('change', () => draw(includeIdle.checked ? withIdle : (withoutIdle ?? withIdle)));
  draw(withIdle);
}

// A host op's share of device time (and a device op's of host time) does not apply: the server writes 0 there,
// which reads "—" rather than "0.00%". A non-zero value (a carried cumulative share) is shown as served.
function otherSideShares(t: DataTable): Record<string, (row: number) => string | undefined> {
  const side = strings(t, 'host_or_device');
  const cols = new Map(t.cols.map((c, i) => [c.id, i]));
  const rule = (id: string, other: string) => (r: number) => {
    const i = cols.get(id);
    const v = i === undefined ? undefined : t.rows[r]?.c?.[i]?.v;
    return side[r] === other && Number(v ?? 0) === 0 ? `Not applicable: a ${other.toLowerCase()} op has no share of ${other === 'Host' ? 'device' : 'host'} time.` : undefined;
  };
  return {
    device_total_self_time_percent: rule('device_total_self_time_percent', 'Host'),
    device_cumulative_total_self_time_percent: rule('device_cumulative_total_self_time_percent', 'Host'),
    host_total_self_time_percent: rule('host_total_self_time_percent', 'Device'),
    host_cumulative_total_self_time_percent: rule('host_cumulative_total_self_time_percent', 'Device'),
    Host_cumulative_total_self_time_percent: rule('Host_cumulative_total_self_time_percent', 'Device'),
  };
}
