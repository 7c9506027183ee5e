import { section, message } from '../dom';
import { tableAt, DataTable, isTable, strings, numbers } from '../datatable';
import { PageContext } from '../page';
import { horizontalBars } from '../charts';
import { gridFromDataTable } from '../table';

export async function renderKernelStats(ctx: PageContext): Promise<void> {
  const data = await ctx.load<unknown>();
  // xprof answers one table; older versions an array with the table first.
  const t: DataTable | null = isTable(data) ? data : tableAt(data, 0);
  if (!t || t.rows.length === 0) { ctx.root.appendChild(message('empty', 'No GPU kernels were recorded in this profile.')); return; }
  const names = strings(t, 'kernel_name'), totals = numbers(t, 'total_duration_us');
  const top = names.map((name, i) => ({ name, value: totals[i] })).filter((x) => Number.isFinite(x.value))
    .sort((a, b) => b.value - a.value).slice(0, 10);
  ctx.root.appendChild(section('Top 10 kernels by total duration (µs)', horizontalBars(top, { unit: ' µs', name: 'top-kernels' })));
  ctx.root.appendChild(section('Kernels', gridFromDataTable(t, { initialSort: { id: 'total_duration_us', desc: true }, name: 'kernels',
    filterPlaceholder: 'Filter by kernel or op name…' }).root));
}
