// Number formatting shared by tables, charts and cards.

export function fmtNum(v: number, digits = 2): string {
  if (!Number.isFinite(v)) return String(v);
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return v.toLocaleString('en-US');
  const abs = Math.abs(v);
  if (abs >= 1e12) return v.toExponential(digits);
  // A small value keeps its significant digits in plain notation ("0.000123"), never "1.23e-4" and never "0".
  if (abs !== 0 && abs < 10 ** -digits) return v.toLocaleString('en-US', { maximumSignificantDigits: 3 });
  return v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

export function fmtPct(fraction: number, digits = 1): string {
  return `${(fraction * 100).toFixed(digits)}%`;
}

export function fmtBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes, i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  // Whole bytes are exact; a fraction of a byte (an average) keeps one digit.
  return `${i === 0 ? (Number.isInteger(v) ? String(v) : v.toFixed(1)) : v.toFixed(2)} ${units[i]}`;
}

// A size the server gives in MiB, in the unit that fits it (a few bytes are "8 B", not "7.63e-6 MiB").
export function fmtMiB(mib: number): string {
  return fmtBytes(mib * 1024 * 1024);
}

// Durations given in microseconds, shown in the unit that keeps 3 significant digits.
export function fmtUs(us: number): string {
  const abs = Math.abs(us);
  if (abs >= 1e6) return `${(us / 1e6).toFixed(3)} s`;
  if (abs >= 1e3) return `${(us / 1e3).toFixed(3)} ms`;
  if (abs >= 1) return `${us.toFixed(3)} µs`;
  return `${(us * 1e3).toFixed(1)} ns`;
}

// Long kernel and op names differ at both ends (the library prefix, the shape or op suffix): keep both.
export function middleEllipsis(text: string, max = 64): string {
  if (text.length <= max) return text;
  const head = Math.ceil((max - 1) * 0.55), tail = max - 1 - head;
  return `${text.slice(0, head)}…${text.slice(text.length - tail)}`;
}

// A point in time or a duration given in µs, to the nanosecond, in the unit that keeps it readable.
export function fmtPreciseUs(us: number): string {
  const abs = Math.abs(us);
  if (abs >= 1e6) return `${(us / 1e6).toFixed(9)} s`;
  if (abs >= 1e3) return `${(us / 1e3).toFixed(6)} ms`;
  return `${us.toFixed(3)} µs`;
}

// Shortened names that stay different: names whose middle ellipses would read the same (same head, same tail)
// show instead the part where they differ ("head…differing part…tail"). Returns each name's shown form.
export function distinctEllipses(texts: Iterable<string>, max = 64): Map<string, string> {
  const byShort = new Map<string, string[]>();
  for (const t of new Set(texts)) {
    const short = middleEllipsis(t, max);
    byShort.set(short, [...(byShort.get(short) ?? []), t]);
  }
  const out = new Map<string, string>();
  for (const [short, same] of byShort) {
    for (const t of same) out.set(t, same.length === 1 ? short : aroundDifference(t, same, max));
  }
  return out;
}

function aroundDifference(text: string, group: string[], max: number): string {
  let at = text.length;
  for (const other of group) {
    if (other === text) continue;
    let i = 0;
    while (i < text.length && i < other.length && text[i] === other[i]) i++;
    at = Math.min(at, i);
  }
  const head = Math.min(16, Math.floor(max / 4)), tail = head, window = Math.max(8, max - head - tail - 2);
  const from = Math.max(head, Math.min(at - Math.floor(window / 3), text.length - tail - window));
  const to = Math.min(text.length - tail, from + window);
  if (from <= head && to >= text.length - tail) return text;
  return `${text.slice(0, head)}${from > head ? '…' : ''}${text.slice(from, to)}${to < text.length - tail ? '…' : ''}${text.slice(text.length - tail)}`;
}
