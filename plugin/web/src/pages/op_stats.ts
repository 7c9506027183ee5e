import { el, section, message, clear } from '../dom';
import { tableAt, DataTable, strings, numbers } from '../datatable';
import { PageContext } from '../page';
import { pie } from '../charts';
import { apiUrl } from '../api';
import { gridFromDataTable } from '../table';

const PERCENT_COLS = ['device_total_self_time_percent', 'device_cumulative_total_self_time_percent', 'host_total_self_time_percent',
  'host_cumulative_total_self_time_percent', 'Host_cumulative_total_self_time_percent', 'gpu_tensorcore_utilization'];

function sumBy(keys: string[], values: number[], where: boolean[]): { name: string; value: number }[] {
  const m = new Map<string, number>();
  keys.forEach((k, i) => { if (where[i] && Number.isFinite(values[i])) m.set(k, (m.get(k) ?? 0) + values[i]); });
  return Array.from(m, ([name, value]) => ({ name, value }));
}

export async function renderOpStats(ctx: PageContext): Promise<void> {
  const data = await ctx.load<unknown>();
  const withIdle = tableAt(data, 0), withoutIdle = tableAt(data, 1) ?? withIdle;
  if (!withIdle) { ctx.root.appendChild(message('empty', 'No framework op statistics in this profile.')); return; }

  const includeIdle = el('input', { type: 'checkbox', id: 'include-idle' });
  includeIdle.checked = true;
  const csv = el('a', { class: 'button', id: 'csv-export', download: '',
    href: apiUrl('data_csv', { run: ctx.sel.run, tag: ctx.sel.tool, host: ctx.sel.host }) }, 'Export as CSV');
  const controls = el('div', { class: 'toolbar' }, el('label', {}, includeIdle, ' Include IDLE time in statistics'), csv);
  const body = el('div');
  ctx.root.append(controls, body);

  const draw = (t: DataTable) => {
    clear(body);
    const where = strings(t, 'host_or_device');
    const names = strings(t, 'operation'), types = strings(t, 'type'), self = numbers(t, 'total_self_time');
    const isHost = where.map((w) => /host/i.test(w)), isDevice = where.map((w) => /device/i.test(w));
    const p = t.p ?? {};
    if (p.architecture_type || p.task_type) {
      body.appendChild(el('p', { class: 'hint' }, `Architecture: ${p.architecture_type ?? 'unknown'} · Task: ${p.task_type ?? 'unknown'}`));
    }
    body.appendChild(section('Self-time distribution',
      el('div', { class: 'pies' },
        pie('Device: self-time per op type', sumBy(types, self, isDevice), { name: 'device-type' }),
        pie('Device: self-time per op', sumBy(names, self, isDevice), { name: 'device-op' }),
        pie('Host: self-time per op type', sumBy(types, self, isHost), { name: 'host-type' }),
        pie('Host: self-time per op', sumBy(names, self, isHost), { name: 'host-op' }))));
    body.appendChild(section('Operations', t.rows.length
      ? gridFromDataTable(t, { percentCols: PERCENT_COLS, initialSort: { id: 'rank', desc: false }, name: 'op-stats', filterPlaceholder: 'Filter by op name, type or host/device…' }).root
      : message('empty', 'No operations were recorded.')));
  };
  includeIdle.addEventListener('change', () => draw(includeIdle.checked ? withIdle : (withoutIdle ?? withIdle)));
  draw(withIdle);
}
