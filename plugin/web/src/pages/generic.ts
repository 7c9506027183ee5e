// Tools without a dedicated page: show every DataTable, else a JSON outline.
import { el, section, message } from '../dom';
import { isTable } from '../datatable';
import { PageContext } from '../page';
import { gridFromDataTable } from '../table';

export async function renderGeneric(ctx: PageContext): Promise<void> {
  const data = await ctx.load<unknown>();
  const tables = (Array.isArray(data) ? data : [data]).filter(isTable);
  if (tables.length) {
    tables.forEach((t, i) => ctx.root.appendChild(section(`Table ${i + 1}`, t.rows.length ? gridFromDataTable(t, { name: `table-${i}` }).root : message('empty', 'Empty table.'))));
    return;
  }
  const text = JSON.stringify(data, null, 1);
  ctx.root.appendChild(section('Raw data', el('p', { class: 'hint' }, 'tbprof has no dedicated page for this tool yet; this is the response.'),
    el('pre', { class: 'raw' }, text.length > 200000 ? text.slice(0, 200000) + '\n…' : text)));
}
