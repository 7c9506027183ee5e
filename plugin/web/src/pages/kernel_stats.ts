import { el, section, message } from '../dom';
import { tableAt, DataTable, isTable, strings, numbers } from '../datatable';
import { PageContext, csvButton } from '../page';
import { horizontalBars } from '../charts';
import { distinctEllipses, fmtNum } from '../format';
import { gridFromDataTable } from '../table';

// The kernels past the table's rows (the server's p.hidden_*): how many, how long they ran, how often.
function hiddenKernels(t: DataTable): HTMLElement | null {
  const n = Number(t.p?.hidden_kernels ?? 0);
  if (!(n > 0)) return null;
  const us = Number(t.p?.hidden_total_duration_us), launches = Number(t.p?.hidden_occurrences);
  const line = message('info', `${fmtNum(n)} more kernel${n === 1 ? '' : 's'} (${fmtNum(us)} µs, ${fmtNum(launches)} launch${launches === 1 ? '' : 'es'}) not shown: `
    + `the table keeps the ${fmtNum(t.rows.length)} longest; Export as CSV lists every kernel.`);
  line.id = 'hidden-kernels';
  line.setAttribute('data-hidden-kernels', String(n));
  line.setAttribute('data-hidden-us', String(t.p?.hidden_total_duration_us ?? ''));
  line.setAttribute('data-hidden-occurrences', String(t.p?.hidden_occurrences ?? ''));
  return line;
}

export async function renderKernelStats(ctx: PageContext): Promise<void> {
  const data = await ctx.load<unknown>();
  // xprof answers one table; older versions an array with the table first.
  const t: DataTable | null = isTable(data) ? data : tableAt(data, 0);
  if (!t || t.rows.length === 0) { ctx.root.appendChild(message('empty', 'No GPU kernels were recorded in this profile.')); return; }
  ctx.root.appendChild(el('div', { class: 'toolbar' }, csvButton(ctx.sel)));
  const hidden = hiddenKernels(t);
  if (hidden) ctx.root.appendChild(hidden);
  // Rows are (kernel, op) pairs, and one kernel often serves several ops: the label names both.
  const names = strings(t, 'kernel_name'), ops = strings(t, 'op_name'), totals = numbers(t, 'total_duration_us');
  const rows = names.map((name, i) => ({ name: ops[i] ? `${name} (${ops[i]})` : name, kernel: name, op: ops[i], value: totals[i] }))
    .filter((x) => Number.isFinite(x.value)).sort((a, b) => b.value - a.value).slice(0, 10);
  // Kernels of one library share long heads and tails: the labels show where two names differ.
  const kernelShort = distinctEllipses(rows.map((x) => x.kernel), rows.some((x) => x.op) ? 28 : 56);
  const opShort = distinctEllipses(rows.map((x) => x.op).filter(Boolean), 24);
  const top = rows.map((x) => ({ name: x.name, value: x.value,
    label: x.op ? `${kernelShort.get(x.kernel)} · ${opShort.get(x.op)}` : kernelShort.get(x.kernel) }));
  ctx.root.appendChild(section('Top 10 kernels by total duration (µs)', horizontalBars(top, { unit: ' µs', name: 'top-kernels' })));
  ctx.root.appendChild(section('Kernels', gridFromDataTable(t, { initialSort: { id: 'total_duration_us', desc: true }, name: 'kernels',
    columnFilters: ['kernel_name', 'op_name'], chooseColumns: true,
    leadColumns: ['kernel_name', 'op_name', 'total_duration_us', 'occurrences', 'avg_duration_us'] }).root));
}
