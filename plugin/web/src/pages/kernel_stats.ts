import { el, section, message } from '../dom';
import { tableAt, DataTable, isTable, strings, numbers } from '../datatable';
import { PageContext, csvButton } from '../page';
import { horizontalBars } from '../charts';
import { middleEllipsis } from '../format';
import { gridFromDataTable } from '../table';

export async function renderKernelStats(ctx: PageContext): Promise<void> {
  const data = await ctx.load<unknown>();
  // xprof answers one table; older versions an array with the table first.
  const t: DataTable | null = isTable(data) ? data : tableAt(data, 0);
  if (!t || t.rows.length === 0) { ctx.root.appendChild(message('empty', 'No GPU kernels were recorded in this profile.')); return; }
  ctx.root.appendChild(el('div', { class: 'toolbar' }, csvButton(ctx.sel)));
  // Rows are (kernel, op) pairs, and one kernel often serves several ops: the label names both.
  const names = strings(t, 'kernel_name'), ops = strings(t, 'op_name'), totals = numbers(t, 'total_duration_us');
  const top = names.map((name, i) => ({ name: ops[i] ? `${name} (${ops[i]})` : name, label: ops[i] ? `${middleEllipsis(name, 28)} · ${middleEllipsis(ops[i], 24)}` : middleEllipsis(name, 56), value: totals[i] }))
    .filter((x) => Number.isFinite(x.value)).sort((a, b) => b.value - a.value).slice(0, 10);
  ctx.root.appendChild(section('Top 10 kernels by total duration (µs)', horizontalBars(top, { unit: ' µs', name: 'top-kernels' })));
  ctx.root.appendChild(section('Kernels', gridFromDataTable(t, { initialSort: { id: 'total_duration_us', desc: true }, name: 'kernels',
    columnFilters: ['kernel_name', 'op_name'] }).root));
}
