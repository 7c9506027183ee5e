// A sortable, filterable table over rows of any shape. Renders a page of rows
// at a time so tables with tens of thousands of rows stay responsive.
import { el, clear } from './dom';
import { fmtNum, middleEllipsis, distinctEllipses } from './format';
import { DataTable, cellValue, cellText } from './datatable';

export interface GridColumn<R> {
  id: string;
  label: string;
  numeric?: boolean;
  value: (row: R) => unknown;       // used for sorting and filtering
  json?: (row: R) => { v: unknown; unit?: string } | null; // the server value a cell shows (data-json), for tests
  render?: (row: R) => Node | string; // defaults to a formatted value
  longText?: boolean;                  // names: ellipsised in the middle, whole on hover, with a copy action
}

export interface GridOptions {
  pageSize?: number; filterPlaceholder?: string; initialSort?: { id: string; desc: boolean }; name?: string;
  columnFilters?: string[];  // ids of columns that get their own filter box (instead of the one over all text)
  longTextColumns?: string[];
  // Columns users sort and read by, drawn first so a narrow window shows them; the rest keep their order.
  leadColumns?: string[];
  // Offer a "Columns" chooser to show or hide columns (wide tables).
  chooseColumns?: boolean;
}

const LONG_TEXT_CHARS = 64;

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Without clipboard permission, fall back to a selection copy.
    const area = el('textarea', { class: 'copy-buffer', 'aria-hidden': 'true' });
    area.value = text;
    document.body.appendChild(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}

export function longTextCell(text: string, shortForm?: string): HTMLElement {
  const shown = el('span', { class: 'long-text', title: text }, shortForm ?? middleEllipsis(text));
  const copy = el('button', { class: 'copy-button', title: 'Copy the whole name', 'aria-label': 'Copy the whole name', 'data-copy': text }, 'copy');
  copy.addEventListener('click', (e) => {
    e.stopPropagation();
    void copyText(text).then((ok) => { copy.textContent = ok ? 'copied' : 'copy failed'; window.setTimeout(() => { copy.textContent = 'copy'; }, 1200); });
  });
  return el('span', { class: 'long-cell' }, shown, copy);
}

export class DataGrid<R> {
  readonly root: HTMLElement;
  private filterText = '';
  private sortId: string | null;
  private sortDesc: boolean;
  private shown: number;
  private readonly body: HTMLElement;
  private readonly status: HTMLElement;
  private readonly head: HTMLElement;

  private readonly columnFilters = new Map<string, string>();

  private readonly hidden = new Set<string>();
  private readonly columns: GridColumn<R>[];

  constructor(columns: GridColumn<R>[], private rows: R[], private readonly opts: GridOptions = {}) {
    const lead = (opts.leadColumns ?? []).map((id) => columns.find((c) => c.id === id)).filter((c): c is GridColumn<R> => !!c);
    this.columns = [...lead, ...columns.filter((c) => !lead.includes(c))];
    this.sortId = opts.initialSort?.id ?? null;
    this.sortDesc = opts.initialSort?.desc ?? false;
    this.shown = opts.pageSize ?? 100;
    const boxes: HTMLElement[] = [];
    const perColumn = (opts.columnFilters ?? []).map((id) => columns.find((c) => c.id === id)).filter((c): c is GridColumn<R> => !!c);
    if (perColumn.length) {
      for (const c of perColumn) {
        const box = el('input', { type: 'search', class: 'grid-filter column-filter', placeholder: `Filter by ${c.label}…`,
          'aria-label': `Filter by ${c.label}`, 'data-filter-col': c.id });
        box.addEventListener('input', () => { this.columnFilters.set(c.id, box.value.trim().toLowerCase()); this.shown = opts.pageSize ?? 100; this.refresh(); });
        boxes.push(box);
      }
    } else {
      const filter = el('input', { type: 'search', class: 'grid-filter', placeholder: opts.filterPlaceholder ?? 'Filter rows…',
        'aria-label': 'Filter rows' });
      filter.addEventListener('input', () => { this.filterText = filter.value.trim().toLowerCase(); this.shown = opts.pageSize ?? 100; this.refresh(); });
      boxes.push(filter);
    }
    if (opts.chooseColumns) boxes.push(this.columnChooser());
    this.status = el('span', { class: 'grid-status' });
    this.head = el('tr');
    this.body = el('tbody');
    const table = el('table', { class: 'grid' }, el('thead', {}, this.head), this.body);
    this.root = el('div', { class: 'grid-wrap', 'data-grid': opts.name ?? '' }, el('div', { class: 'grid-toolbar' }, ...boxes, this.status),
      el('div', { class: 'grid-scroll' }, table));
    this.refresh();
  }

  // A drop-down of checkboxes, one per column: unchecking hides the column.
  private columnChooser(): HTMLElement {
    const list = el('div', { class: 'column-list' }, ...this.columns.map((c) => {
      const box = el('input', { type: 'checkbox', 'data-choose-col': c.id }) as HTMLInputElement;
      box.checked = true;
      box.addEventListener('change', () => { if (box.checked) this.hidden.delete(c.id); else this.hidden.add(c.id); this.refresh(); });
      return el('label', {}, box, ` ${c.label}`);
    }));
    return el('details', { class: 'column-chooser' }, el('summary', {}, 'Columns'), list);
  }

  setRows(rows: R[]): void { this.rows = rows; this.refresh(); }

  private visibleRows(): R[] {
    let rows = this.rows;
    if (this.filterText) {
      const needle = this.filterText;
      rows = rows.filter((r) => this.columns.some((c) => !c.numeric && String(c.value(r) ?? '').toLowerCase().includes(needle)));
    }
    for (const [id, needle] of this.columnFilters) {
      const c = this.columns.find((x) => x.id === id);
      if (c && needle) rows = rows.filter((r) => String(c.value(r) ?? '').toLowerCase().includes(needle));
    }
    const col = this.columns.find((c) => c.id === this.sortId);
    if (col) {
      const dir = this.sortDesc ? -1 : 1;
      rows = rows.slice().sort((a, b) => {
        const va = col.value(a), vb = col.value(b);
        if (col.numeric) {
          const na = Number(va), nb = Number(vb);
          return ((Number.isNaN(na) ? -Infinity : na) - (Number.isNaN(nb) ? -Infinity : nb)) * dir;
        }
        return String(va ?? '').localeCompare(String(vb ?? '')) * dir;
      });
    }
    return rows;
  }

  private cell(c: GridColumn<R>, r: R, long: boolean, shortForms?: Map<string, string>): HTMLElement {
    let content: Node | string;
    if (c.render) content = c.render(r);
    else {
      const v = c.value(r);
      content = typeof v === 'number' ? fmtNum(v) : v === null || v === undefined ? '' : String(v);
    }
    if (long && typeof content === 'string' && content.length > LONG_TEXT_CHARS) content = longTextCell(content, shortForms?.get(content));
    const td = el('td', { class: c.numeric ? 'num' : long ? 'long' : '', 'data-col': c.id }, content);
    const json = c.json?.(r);
    if (json && json.v !== null && json.v !== undefined && !td.querySelector('.unknown')) {
      td.setAttribute('data-json', String(json.v));
      td.setAttribute('data-json-unit', json.unit ?? '');
    }
    return td;
  }

  private refresh(): void {
    clear(this.head);
    const columns = this.columns.filter((c) => !this.hidden.has(c.id));
    for (const c of columns) {
      const arrow = c.id === this.sortId ? (this.sortDesc ? ' ▼' : ' ▲') : '';
      const th = el('th', { class: c.numeric ? 'num' : '', 'data-col': c.id, title: 'Sort by ' + c.label }, c.label + arrow);
      th.addEventListener('click', () => {
        if (this.sortId === c.id) this.sortDesc = !this.sortDesc;
        else { this.sortId = c.id; this.sortDesc = !!c.numeric; }
        this.refresh();
      });
      this.head.appendChild(th);
    }
    const rows = this.visibleRows();
    const drawnRows = rows.slice(0, this.shown);
    clear(this.body);
    const frag = document.createDocumentFragment();
    const isLong = (c: GridColumn<R>) => !!(c.longText || this.opts.longTextColumns?.includes(c.id));
    // Long names are shortened per column so that two different names never read the same.
    const shortForms = new Map(columns.filter(isLong).map((c) => [c.id, distinctEllipses(drawnRows.map((r) => String(c.value(r) ?? '')))]));
    for (const r of drawnRows) {
      const tr = el('tr');
      for (const c of columns) tr.appendChild(this.cell(c, r, isLong(c), shortForms.get(c.id)));
      frag.appendChild(tr);
    }
    this.body.appendChild(frag);
    clear(this.status);
    // "<matching> of <all> rows", then how many of them are drawn when not all are.
    const fmt = (x: number) => x.toLocaleString('en-US');
    this.status.append(`${fmt(rows.length)} of ${fmt(this.rows.length)} rows`);
    this.status.setAttribute('data-matching', String(rows.length));
    const drawn = Math.min(rows.length, this.shown);
    this.status.setAttribute('data-drawn', String(drawn));
    if (rows.length > drawn) {
      const more = el('button', { class: 'link-button grid-more' }, `show ${fmt(Math.min(rows.length - drawn, 500))} more`);
      more.addEventListener('click', () => { this.shown += 500; this.refresh(); });
      const all = el('button', { class: 'link-button grid-all' }, 'show all');
      all.addEventListener('click', () => { this.shown = rows.length; this.refresh(); });
      this.status.append(` · first ${fmt(drawn)} drawn · `, more, ' · ', all);
    }
  }
}

// Columns straight from a DataTable, optionally restricted/relabelled.
// zeroMeansUnknown: numeric columns (id -> why) whose values are all 0 because the profile lacks what they
// measure (e.g. FLOP counts); such a column shows "—" with the reason instead of a column of zeros.
// notApplicable: per column id, a row test giving the reason when that cell does not apply to the row (shown as "—").
export function gridFromDataTable(t: DataTable, opts: GridOptions & { hide?: string[]; percentCols?: string[]; zeroMeansUnknown?: Record<string, string>;
  notApplicable?: Record<string, (row: number) => string | undefined> } = {}): DataGrid<number> {
  const hide = new Set(opts.hide ?? []);
  const pct = new Set(opts.percentCols ?? []);
  const unknown = new Map<number, string>();
  for (const [id, why] of Object.entries(opts.zeroMeansUnknown ?? {})) {
    const i = t.cols.findIndex((c) => c.id === id);
    if (i >= 0 && t.rows.length && t.rows.every((_, r) => Number(cellValue(t, r, i) ?? 0) === 0)) unknown.set(i, why);
  }
  const columns: GridColumn<number>[] = [];
  t.cols.forEach((c, i) => {
    if (hide.has(c.id) || c.p?.role === 'tooltip') return;
    const numeric = c.type === 'number';
    columns.push({
      id: c.id, label: c.label || c.id, numeric, longText: c.type === 'string',
      value: (r) => cellValue(t, r, i),
      // A number drawn by this page (not the server's own formatted text) carries its served value.
      json: (r) => {
        const v = cellValue(t, r, i);
        if (!numeric || typeof v !== 'number' || typeof t.rows[r]?.c?.[i]?.f === 'string') return null;
        return { v, unit: pct.has(c.id) ? 'fraction' : '' };
      },
      render: (r) => {
        const why = unknown.get(i) ?? opts.notApplicable?.[c.id]?.(r);
        if (why !== undefined) return el('span', { class: 'unknown', title: why }, '—');
        const v = cellValue(t, r, i);
        // An empty number cell is a figure the profile does not hold: unknown, not 0 and not blank.
        if (numeric && (v === null || v === undefined)) return el('span', { class: 'unknown', title: 'not recorded in this profile' }, '—');
        if (pct.has(c.id) && typeof v === 'number') return `${(v * 100).toFixed(2)}%`;
        const cell = t.rows[r]?.c?.[i];
        if (cell && typeof cell.f === 'string') return cell.f;
        if (typeof v === 'string') return v;
        if (typeof v === 'number') return fmtNum(v);
        if (typeof v === 'boolean') return v ? 'Yes' : 'No';
        return cellText(t, r, i);
      },
    });
  });
  return new DataGrid(columns, t.rows.map((_, i) => i), opts);
}
