// Reading Google DataTable JSON ({cols, rows, p}) as the converters emit it.

export interface Column { id: string; label: string; type: string; p?: Record<string, string> }
export interface Cell { v: unknown; f?: string; p?: Record<string, string> }
export interface DataTable { cols: Column[]; rows: { c: (Cell | null)[] }[]; p?: Record<string, string> }

export function isTable(x: unknown): x is DataTable {
  return typeof x === 'object' && x !== null && Array.isArray((x as DataTable).cols) &&
    Array.isArray((x as DataTable).rows);
}

// Multi-table tools answer with an array (empty slots are {}); single-table tools with one object.
export function tableAt(data: unknown, index: number): DataTable | null {
  if (Array.isArray(data)) return isTable(data[index]) ? data[index] : null;
  return index === 0 && isTable(data) ? data : null;
}

export function props(t: DataTable | null | undefined): Record<string, string> {
  if (!t) return {};
  const p = (t as { p?: Record<string, string> }).p;
  return p && typeof p === 'object' ? p : {};
}

export function colIndex(t: DataTable, id: string): number {
  return t.cols.findIndex((c) => c.id === id);
}

export function cellValue(t: DataTable, row: number, col: number): unknown {
  const cell = t.rows[row]?.c?.[col];
  return cell === null || cell === undefined ? null : cell.v;
}

export function cellText(t: DataTable, row: number, col: number): string {
  const cell = t.rows[row]?.c?.[col];
  if (!cell) return '';
  if (typeof cell.f === 'string') return cell.f;
  return cell.v === null || cell.v === undefined ? '' : String(cell.v);
}

export function num(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '') { const n = Number(v); return Number.isFinite(n) ? n : NaN; }
  return NaN;
}

// Column of numbers by id (NaN where missing).
export function numbers(t: DataTable, id: string): number[] {
  const c = colIndex(t, id);
  return t.rows.map((_, r) => (c < 0 ? NaN : num(cellValue(t, r, c))));
}

export function strings(t: DataTable, id: string): string[] {
  const c = colIndex(t, id);
  return t.rows.map((_, r) => (c < 0 ? '' : cellText(t, r, c)));
}

// Custom properties of slot `index`, also for slots that are only {"p": {...}}.
export function propsAt(data: unknown, index: number): Record<string, string> {
  const slot = Array.isArray(data) ? data[index] : index === 0 ? data : null;
  const p = slot && typeof slot === 'object' ? (slot as { p?: unknown }).p : null;
  return p && typeof p === 'object' ? (p as Record<string, string>) : {};
}
