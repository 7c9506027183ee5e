// tfprof's views in the spirit of TensorFlow's profiler-ui: a view selector and
// an option form (tfprof's option names), the view as a collapsible tree table
// whose columns sort the children of every node, and a flame graph of the view
// (widths = total execution time). Figures the profile cannot give are null in
// the answer and shown as "—".
import { el, section, message, svg, clear } from '../dom';
import { PageContext, describeError } from '../page';
import { fmtNum, fmtUs, middleEllipsis } from '../format';

interface TfNode { name: string; children: TfNode[]; [figure: string]: unknown }
interface TfViewAnswer { view: string; text: string; note?: string; root: TfNode }
interface TfAdviceAnswer { view: 'advise'; checkers: Record<string, string[]>; text: string }

interface Column { id: string; label: string; format: (v: number) => string }
// tfprof's memory figures are decimal (KB = 1000 B), so they are shown in bytes.
const bytes = (v: number) => `${fmtNum(v)} B`;
const COLUMNS: Column[] = [
  { id: 'total_exec_micros', label: 'Total time', format: fmtUs },
  { id: 'total_accelerator_exec_micros', label: 'Accelerator time', format: fmtUs },
  { id: 'total_cpu_exec_micros', label: 'CPU time', format: fmtUs },
  { id: 'total_requested_bytes', label: 'Requested', format: bytes },
  { id: 'total_peak_bytes', label: 'Peak', format: bytes },
  { id: 'total_output_bytes', label: 'Output', format: bytes },
  { id: 'total_parameters', label: 'Params', format: fmtNum },
  { id: 'total_float_ops', label: 'FLOPs', format: fmtNum },
  { id: 'total_run_count', label: 'Runs', format: fmtNum },
];
const VIEWS = ['scope', 'op', 'code', 'graph', 'advise'];
const ORDER_BY = ['micros', 'accelerator_micros', 'cpu_micros', 'bytes', 'peak_bytes', 'residual_bytes', 'output_bytes',
  'params', 'float_ops', 'occurrence', 'name'];
const SELECT = ['micros', 'accelerator_micros', 'cpu_micros', 'bytes', 'peak_bytes', 'residual_bytes', 'output_bytes',
  'params', 'float_ops', 'occurrence'];

// profiler-ui's defaults: every type accounted, displayed nodes only, by time.
interface FormState { [option: string]: string }
const DEFAULTS: FormState = {
  view: 'scope', max_depth: '10', min_micros: '0', min_bytes: '0', order_by: 'micros', account_type_regexes: '.*',
  start_name_regexes: '.*', show_name_regexes: '.*', hide_name_regexes: '', trim_name_regexes: '',
  account_displayed_op_only: 'true', select: 'micros', step: '-1',
};

function figure(node: TfNode, id: string): number | null {
  const v = node[id];
  return typeof v === 'number' ? v : null;
}

// The op view's rows come from tfprof's chain, where each row's total_* runs
// down the list (the row plus every row below it): a row's own figures are
// its op type's, so rows show those and only the root its totals, as the text
// view does.
function rowFigure(node: TfNode, id: string, top: TfNode, view: string): number | null {
  if (view === 'op' && node !== top && id.startsWith('total_')) return figure(node, id.slice('total_'.length));
  return figure(node, id);
}

function cell(v: number | null, c: Column): HTMLElement {
  return v === null ? el('td', { class: 'num unknown', title: 'The profile cannot give this figure' }, '—')
    : el('td', { class: 'num' }, c.format(v));
}

// A node with thousands of children (every op of a big model under one scope)
// shows its largest ones first and the rest on request, so the page stays quick.
const CHILDREN_SHOWN = 100;
// The tree opens level by level while it stays within this many rows (the
// root and its children at least); deeper levels open on request.
const ROWS_OPEN_AT_FIRST = 60;

class TreeTable {
  private sortBy = 'total_exec_micros';
  private readonly expanded = new Set<TfNode>();
  private readonly showAll = new Set<TfNode>();
  readonly root = el('div', { class: 'tfprof-tree' });

  constructor(private readonly top: TfNode, private readonly view: string) {
    this.expanded.add(top);
    let level = top.children;
    let rows = 1 + Math.min(level.length, CHILDREN_SHOWN);
    for (;;) {
      const next = level.flatMap((n) => n.children.slice(0, CHILDREN_SHOWN));
      if (next.length === 0 || rows + next.length > ROWS_OPEN_AT_FIRST) break;
      for (const n of level) if (n.children.length) this.expanded.add(n);
      rows += next.length;
      level = next;
    }
    this.render();
  }

  private value(node: TfNode, id: string): number | null { return rowFigure(node, id, this.top, this.view); }

  private sorted(children: TfNode[]): TfNode[] {
    if (this.sortBy === 'name') return [...children].sort((a, b) => a.name.localeCompare(b.name));
    return [...children].sort((a, b) => (this.value(b, this.sortBy) ?? -1) - (this.value(a, this.sortBy) ?? -1));
  }

  private render(): void {
    clear(this.root);
    const head = el('tr', {}, this.header('name', 'Node'), ...COLUMNS.map((c) => this.header(c.id, c.label)));
    const body = el('tbody');
    const walk = (node: TfNode, depth: number) => {
      const open = this.expanded.has(node);
      const toggle = node.children.length
        ? el('button', { class: 'tree-toggle', 'aria-expanded': String(open), title: open ? 'Collapse' : 'Expand' }, open ? '▾' : '▸')
        : el('span', { class: 'tree-leaf' }, '·');
      toggle.addEventListener('click', () => { if (open) this.expanded.delete(node); else this.expanded.add(node); this.render(); });
      const name = el('td', { class: `tree-name depth-${Math.min(depth, 30)}`, title: node.name }, toggle, ' ', middleEllipsis(node.name, 90));
      body.appendChild(el('tr', { 'data-node': node.name }, name, ...COLUMNS.map((c) => cell(this.value(node, c.id), c))));
      if (!open) return;
      const children = this.sorted(node.children);
      const shown = this.showAll.has(node) ? children : children.slice(0, CHILDREN_SHOWN);
      for (const c of shown) walk(c, depth + 1);
      if (shown.length < children.length) {
        const more = el('button', { class: 'link-button more-rows', 'data-more': node.name },
          `show ${children.length - shown.length} more children of ${middleEllipsis(node.name, 60)}`);
        more.addEventListener('click', () => { this.showAll.add(node); this.render(); });
        body.appendChild(el('tr', { class: 'more' }, el('td', { class: `tree-name depth-${Math.min(depth + 1, 30)}`, colspan: String(COLUMNS.length + 1) }, more)));
      }
    };
    walk(this.top, 0);
    this.root.appendChild(el('table', { class: 'grid tfprof-table' }, el('thead', {}, head), body));
  }

  private header(id: string, label: string): HTMLElement {
    const th = el('th', { class: id === 'name' ? '' : 'num', 'aria-sort': this.sortBy === id ? (id === 'name' ? 'ascending' : 'descending') : 'none' },
      el('button', { class: 'sort', title: `Sort every node's children by ${label}` }, label));
    th.addEventListener('click', () => { this.sortBy = id; this.render(); });
    return th;
  }
}

// An icicle: the root spans the width, each node's children laid end to end
// inside it in proportion to their total execution time (an op row its own).
// Nodes narrower than half a unit (0.05% of the root) are not drawn: they
// cannot be seen or pointed at, and a big model has tens of thousands of them.
function flameGraph(root: TfNode, view: string): SVGElement {
  const width = 1000, rowHeight = 18;
  const time = (node: TfNode) => rowFigure(node, 'total_exec_micros', root, view) ?? 0;
  const total = time(root);
  const rects: SVGElement[] = [];
  let depthMax = 0;
  const place = (node: TfNode, x: number, w: number, depth: number) => {
    depthMax = Math.max(depthMax, depth);
    const t = time(node);
    const label = w > 40 ? middleEllipsis(node.name, Math.floor(w / 7)) : '';
    rects.push(svg('g', { class: 'flame-node' },
      svg('title', {}, `${node.name}: ${fmtUs(t)}`),
      svg('rect', { x, y: depth * rowHeight, width: Math.max(w - 1, 0.5), height: rowHeight - 1, class: `flame-rect flame-${depth % 6}` }),
      label ? svg('text', { x: x + 3, y: depth * rowHeight + 13, class: 'flame-label' }, label) : null));
    let cx = x;
    for (const c of node.children) {
      const ct = time(c);
      if (ct <= 0 || t <= 0) continue;
      const cw = (w * ct) / t;
      if (cw >= 0.5) place(c, cx, cw, depth + 1);
      cx += cw;
    }
  };
  if (total > 0) place(root, 0, width, 0);
  return svg('svg', { viewBox: `0 0 ${width} ${(depthMax + 1) * rowHeight}`, class: 'flame-graph', role: 'img',
    'aria-label': 'Flame graph of the view by total execution time' }, ...rects);
}

function optionForm(state: FormState, submit: (s: FormState) => void): HTMLElement {
  const form = el('form', { class: 'toolbar tfprof-options', id: 'tfprof-options' });
  const field = (name: string, control: HTMLElement) => el('label', { class: 'selector' }, el('span', {}, name), control);
  const choice = (name: string, values: string[]) => {
    const s = el('select', { name, 'aria-label': name });
    for (const v of values) s.appendChild(el('option', v === state[name] ? { value: v, selected: '' } : { value: v }, v));
    return field(name, s);
  };
  const text = (name: string, size = '8') => field(name, el('input', { name, value: state[name] ?? '', size, 'aria-label': name }));
  const checks = el('fieldset', { class: 'tfprof-select' }, el('legend', {}, 'select'));
  const selected = new Set((state.select ?? '').split(',').filter(Boolean));
  for (const s of SELECT) {
    const box = el('input', selected.has(s) ? { type: 'checkbox', value: s, checked: '' } : { type: 'checkbox', value: s });
    checks.appendChild(el('label', {}, box, s));
  }
  const displayOnly = el('input', state.account_displayed_op_only === 'true'
    ? { type: 'checkbox', name: 'account_displayed_op_only', checked: '' } : { type: 'checkbox', name: 'account_displayed_op_only' });
  form.append(choice('view', VIEWS), text('max_depth', '4'), text('min_micros', '6'), text('min_bytes', '8'), text('step', '4'),
    choice('order_by', ORDER_BY), text('account_type_regexes', '12'), text('start_name_regexes', '12'),
    text('show_name_regexes', '12'), text('hide_name_regexes', '12'), text('trim_name_regexes', '12'),
    field('account_displayed_op_only', displayOnly), checks, el('button', { type: 'submit', class: 'button' }, 'Show'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const next: FormState = {};
    for (const input of Array.from(form.querySelectorAll<HTMLInputElement | HTMLSelectElement>('input[name], select[name]'))) {
      next[input.name] = input instanceof HTMLInputElement && input.type === 'checkbox' ? String(input.checked) : input.value;
    }
    next.select = Array.from(checks.querySelectorAll<HTMLInputElement>('input:checked')).map((b) => b.value).join(',') || 'micros';
    submit(next);
  });
  return form;
}

// tfprof's text can run to megabytes: it is folded until asked for, and laid
// out only then.
function textBlock(text: string): HTMLElement {
  const lines = text.split('\n').length;
  const pre = el('pre', { class: 'raw', id: 'tfprof-text' });
  const box = el('details', { class: 'tfprof-text' }, el('summary', {}, `tfprof's text output (${fmtNum(lines)} lines)`), pre);
  box.addEventListener('toggle', () => { if ((box as HTMLDetailsElement).open && !pre.firstChild) pre.textContent = text; });
  return box;
}

export async function renderTfprof(ctx: PageContext): Promise<void> {
  const output = el('div', { id: 'tfprof-output' });
  // The first answer's failure is the page's (its error state names the HTTP status); later ones are shown under the form.
  const show = async (state: FormState, first = false) => {
    clear(output);
    try {
      const params: Record<string, string> = {};
      for (const [k, v] of Object.entries(state)) if (v !== '') params[k] = v;
      const answer = await ctx.load<TfViewAnswer | TfAdviceAnswer>(params);
      if (answer.view === 'advise') {
        const advice = answer as TfAdviceAnswer;
        for (const [checker, reports] of Object.entries(advice.checkers)) {
          output.appendChild(section(checker, reports.length ? el('pre', { class: 'raw' }, reports.join('\n')) : message('empty', 'Nothing to report.')));
        }
        return;
      }
      const view = answer as TfViewAnswer;
      if (view.note) {
        // The options account no node: the table would be empty, so the page says why instead.
        output.append(section(`${view.view} view`, message('empty', view.note)), section('tfprof text', textBlock(view.text)));
        return;
      }
      output.append(
        section(`${view.view} view`, new TreeTable(view.root, view.view).root),
        section('Flame graph (total execution time)', flameGraph(view.root, view.view)),
        section('tfprof text', textBlock(view.text)));
    } catch (e) {
      if (first) throw e;
      output.appendChild(message('error', describeError(e)));
    }
  };
  ctx.root.append(optionForm(DEFAULTS, (s) => { void show(s); }), output);
  await show(DEFAULTS, true);
}
