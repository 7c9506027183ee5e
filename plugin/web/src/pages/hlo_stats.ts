// hlo_stats: every HLO op with its time, FLOP rate, bandwidth and bound-by
// (one DataTable), filters by op name, category and program, the top ops by
// self time, CSV export, and links to the op's row in op_profile and to its
// node in graph_viewer.
import { el, section, message, clear } from '../dom';
import { DataTable, isTable, tableAt, strings, numbers } from '../datatable';
import { PageContext } from '../page';
import { apiUrl } from '../api';
import { horizontalBars } from '../charts';
import { DataGrid } from '../table';
import { columnsOf, distinct, selectOf, xlaToolHref, opFromUrl, graphLink } from './xla_common';

const TOP_OPS = 10;

export async function renderHloStats(ctx: PageContext): Promise<void> {
  const data = await ctx.load<unknown>();
  const t: DataTable | null = isTable(data) ? data : tableAt(data, 0);
  if (!t || t.rows.length === 0) {
    ctx.root.appendChild(message('empty', 'No HLO ops ran on a device in this profile (or its HLO modules were not recorded).'));
    return;
  }
  const names = strings(t, 'hlo_op_name'), categories = strings(t, 'category'), programs = strings(t, 'program_id');
  const expressions = strings(t, 'hlo_op_expression'), selfTimes = numbers(t, 'total_self_time');
  const hasGraphs = ctx.tools.includes('graph_viewer');

  const opFilter = el('input', { type: 'search', id: 'hlo-op-filter', class: 'grid-filter', placeholder: 'Op name or HLO text…', 'aria-label': 'Filter by op name' });
  const categorySelect = selectOf('hlo-category', 'Category', distinct(categories).sort(), 'All categories');
  const programSelect = selectOf('hlo-program', 'Program', distinct(programs).sort(), 'All programs');
  const csv = el('a', { class: 'button', id: 'csv-export', download: 'hlo_stats.csv',
    href: apiUrl('data_csv', { run: ctx.sel.run, tag: ctx.sel.tool, host: ctx.sel.host }) }, 'Export as CSV');
  // A link from another page names one op: show only it until the user clears it.
  const linked = opFromUrl();
  let exactOp = linked.op, exactProgram = linked.program;
  const linkNote = el('span', { class: 'hint', id: 'hlo-linked-op' });
  ctx.root.append(el('div', { class: 'toolbar' }, el('label', {}, 'Op ', opFilter), el('label', {}, 'Category ', categorySelect),
    el('label', {}, 'Program ', programSelect), csv, linkNote));

  const chartBox = el('div');
  ctx.root.appendChild(section(`Top ${TOP_OPS} ops by total self time (µs)`, chartBox));
  const grid = new DataGrid<number>(columnsOf(t, {
    render: {
      hlo_op_expression: (r) => el('div', { class: 'hlo-cell', title: expressions[r] }, expressions[r] || '—'),
      hlo_op_name: (r) => el('span', { class: 'op-cell' }, el('a', { class: 'xla-link', href: xlaToolHref(ctx.sel, 'op_profile', names[r], programs[r]),
        title: 'Show this op in HLO Op Profile', 'data-op': names[r] }, names[r] || '—'),
        hasGraphs && names[r] && programs[r] ? graphLink(ctx.sel, names[r], programs[r]) : null),
    },
  }), [], { initialSort: { id: 'rank', desc: false }, name: 'hlo-stats', filterPlaceholder: 'Filter any text column…' });
  ctx.root.appendChild(section('HLO ops', grid.root));

  const apply = () => {
    const needle = opFilter.value.trim().toLowerCase();
    const category = categorySelect.value, program = programSelect.value;
    const rows: number[] = [];
    for (let r = 0; r < t.rows.length; r++) {
      if (exactOp && (names[r] !== exactOp || (exactProgram && programs[r] !== exactProgram))) continue;
      if (needle && !names[r].toLowerCase().includes(needle) && !expressions[r].toLowerCase().includes(needle)) continue;
      if (category && categories[r] !== category) continue;
      if (program && programs[r] !== program) continue;
      rows.push(r);
    }
    grid.setRows(rows);
    clear(linkNote);
    if (exactOp) {
      const all = el('button', { class: 'link-button', id: 'hlo-show-all' }, 'show all ops');
      all.addEventListener('click', () => { exactOp = ''; exactProgram = ''; apply(); });
      linkNote.append(rows.length ? `Showing the linked op ${exactOp}` : `The linked op ${exactOp} is not in this table`,
        exactProgram ? ` (program ${exactProgram})` : '', ' · ', all);
    }
    const top = rows.filter((r) => Number.isFinite(selfTimes[r])).sort((a, b) => selfTimes[b] - selfTimes[a]).slice(0, TOP_OPS)
      .map((r) => ({ name: names[r], value: selfTimes[r], program: programs[r] }));
    // One op name can run in several programs: name the program where it repeats.
    const repeated = new Set(top.map((x) => x.name).filter((n, i, all) => all.indexOf(n) !== i));
    for (const x of top) if (repeated.has(x.name)) x.name = `${x.name} (program ${x.program})`;
    clear(chartBox);
    chartBox.appendChild(top.length ? horizontalBars(top, { unit: ' µs', name: 'top-hlo-ops' }) : message('empty', 'No op matches the filters.'));
  };
  opFilter.addEventListener('input', apply);
  categorySelect.addEventListener('change', apply);
  programSelect.addEventListener('change', apply);
  apply();
}
