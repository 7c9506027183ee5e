// A sortable, filterable table over rows of any shape. Renders a page of rows
// at a time so tables with tens of thousands of rows stay responsive.
import { el, clear } from './dom';
import { fmtNum } from './format';
import { DataTable, cellValue, cellText } from './datatable';

export interface GridColumn<R> {
  id: string;
  label: string;
  numeric?: boolean;
  value: (row: R) => unknown;       // used for sorting and filtering
  render?: (row: R) => Node | string; // defaults to a formatted value
}

export interface GridOptions { pageSize?: number; filterPlaceholder?: string; initialSort?: { id: string; desc: boolean }; name?: string }

export class DataGrid<R> {
  readonly root: HTMLElement;
  private filterText = '';
  private sortId: string | null;
  private sortDesc: boolean;
  private shown: number;
  private readonly body: HTMLElement;
  private readonly status: HTMLElement;
  private readonly head: HTMLElement;

  constructor(private readonly columns: GridColumn<R>[], private rows: R[], opts: GridOptions = {}) {
    this.sortId = opts.initialSort?.id ?? null;
    this.sortDesc = opts.initialSort?.desc ?? false;
    this.shown = opts.pageSize ?? 100;
    const filter = el('input', { type: 'search', class: 'grid-filter', placeholder: opts.filterPlaceholder ?? 'Filter rows…',
      'aria-label': 'Filter rows' });
    filter.addEventListener('input', () => { this.filterText = filter.value.trim().toLowerCase(); this.shown = opts.pageSize ?? 100; this.refresh(); });
    this.status = el('span', { class: 'grid-status' });
    this.head = el('tr');
    this.body = el('tbody');
    const table = el('table', { class: 'grid' }, el('thead', {}, this.head), this.body);
    this.root = el('div', { class: 'grid-wrap', 'data-grid': opts.name ?? '' }, el('div', { class: 'grid-toolbar' }, filter, this.status),
      el('div', { class: 'grid-scroll' }, table));
    this.refresh();
  }

  setRows(rows: R[]): void { this.rows = rows; this.refresh(); }

  private visibleRows(): R[] {
    let rows = this.rows;
    if (this.filterText) {
      const needle = this.filterText;
      rows = rows.filter((r) => this.columns.some((c) => !c.numeric && String(c.value(r) ?? '').toLowerCase().includes(needle)));
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

  private refresh(): void {
    clear(this.head);
    for (const c of this.columns) {
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
    clear(this.body);
    const frag = document.createDocumentFragment();
    for (const r of rows.slice(0, this.shown)) {
      const tr = el('tr');
      for (const c of this.columns) {
        let content: Node | string;
        if (c.render) content = c.render(r);
        else {
          const v = c.value(r);
          content = typeof v === 'number' ? fmtNum(v) : v === null || v === undefined ? '' : String(v);
        }
        tr.appendChild(el('td', { class: c.numeric ? 'num' : '' }, content));
      }
      frag.appendChild(tr);
    }
    this.body.appendChild(frag);
    clear(this.status);
    this.status.append(`${rows.length.toLocaleString('en-US')} of ${this.rows.length.toLocaleString('en-US')} rows`);
    if (rows.length > this.shown) {
      const more = el('button', { class: 'link-button' }, `show ${Math.min(rows.length - this.shown, 500)} more`);
      more.addEventListener('click', () => { this.shown += 500; this.refresh(); });
      this.status.append(' · ', more);
    }
  }
}

// Columns straight from a DataTable, optionally restricted/relabelled.
export function gridFromDataTable(t: DataTable, opts: GridOptions & { hide?: string[]; percentCols?: string[] } = {}): DataGrid<number> {
  const hide = new Set(opts.hide ?? []);
  const pct = new Set(opts.percentCols ?? []);
  const columns: GridColumn<number>[] = [];
  t.cols.forEach((c, i) => {
    if (hide.has(c.id) || c.p?.role === 'tooltip') return;
    const numeric = c.type === 'number';
    columns.push({
      id: c.id, label: c.label || c.id, numeric,
      value: (r) => cellValue(t, r, i),
      render: (r) => {
        const v = cellValue(t, r, i);
        if (pct.has(c.id) && typeof v === 'number') return `${(v * 100).toFixed(2)}%`;
        const cell = t.rows[r]?.c?.[i];
        if (cell && typeof cell.f === 'string') return cell.f;
        if (typeof v === 'number') return fmtNum(v);
        if (typeof v === 'boolean') return v ? 'Yes' : 'No';
        return cellText(t, r, i);
      },
    });
  });
  return new DataGrid(columns, t.rows.map((_, i) => i), opts);
}
