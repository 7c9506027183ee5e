// Number formatting shared by tables, charts and cards.

export function fmtNum(v: number, digits = 2): string {
  if (!Number.isFinite(v)) return String(v);
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return v.toLocaleString('en-US');
  const abs = Math.abs(v);
  if (abs !== 0 && (abs < 1e-3 || abs >= 1e12)) return v.toExponential(digits);
  return v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

export function fmtPct(fraction: number, digits = 1): string {
  return `${(fraction * 100).toFixed(digits)}%`;
}

export function fmtBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes, i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return `${v.toFixed(i === 0 ? 0 : 2)} ${units[i]}`;
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
