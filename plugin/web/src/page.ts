// What every tool page gets: the selection, a place to draw, and a loader that
// shows progress and turns failures into readable messages.
import { Selection, dataUrl, fetchJson, ApiError, apiUrl } from './api';
import { el, clear, message } from './dom';

export interface PageContext {
  sel: Selection;
  tools: string[];   // the run's tools as /run_tools lists them
  root: HTMLElement;
  signal: AbortSignal;
  // Fetches /data for the selection (plus extra params) while showing a progress line.
  load: <T = unknown>(extra?: Record<string, string | number | undefined>) => Promise<T>;
}

export type PageRenderer = (ctx: PageContext) => Promise<void>;

export function describeError(e: unknown): string {
  if (e instanceof ApiError) {
    if (e.status === 404) return `No data for this tool and host (HTTP 404: ${e.body.trim() || 'Not Found'}).`;
    if (e.status === 0) return `Could not reach the server: ${e.body}`;
    return `The server could not convert this profile (HTTP ${e.status}): ${e.body.trim()}`;
  }
  return `Something went wrong: ${(e as Error)?.message ?? String(e)}`;
}

// Tool names carry era suffixes: '^' (from XPlane), '@' (proto/streaming), '#' (gzip file).
export function baseToolName(tool: string): string { return tool.replace(/[\^@#]+$/, ''); }

// A link that opens another tool of the same run and host.
export function toolLink(sel: Selection, tool: string, text: string): HTMLAnchorElement {
  const q = new URLSearchParams({ run: sel.run, tool, host: sel.host });
  return el('a', { href: `?${q.toString()}`, class: 'tool-link', 'data-tool-link': tool }, text);
}

// The hosts an ALL_HOSTS answer was combined without (the server's "hosts_left_out": first member of its object,
// or of its first table's), each with the reason its file could not be read.
export function hostsLeftOut(data: unknown): { host: string; reason: string }[] {
  const holder = Array.isArray(data) ? data[0] : data;
  const list = holder && typeof holder === 'object' ? (holder as { hosts_left_out?: unknown }).hosts_left_out : undefined;
  if (!Array.isArray(list)) return [];
  return list.filter((x) => x && typeof x.host === 'string').map((x) => ({ host: x.host, reason: String(x.reason ?? '') }));
}

function leftOutNote(left: { host: string; reason: string }[]): HTMLElement {
  const box = message('info', `Combined without ${left.length === 1 ? 'host' : `${left.length} hosts`} whose profile could not be read:`);
  box.id = 'hosts-left-out';
  const list = el('ul', {});
  for (const x of left) list.appendChild(el('li', { 'data-host': x.host }, el('b', {}, x.host), `: ${x.reason}`));
  box.appendChild(list);
  return box;
}

export function makeContext(sel: Selection, tools: string[], root: HTMLElement, signal: AbortSignal): PageContext {
  const load = async <T,>(extra: Record<string, string | number | undefined> = {}): Promise<T> => {
    const started = performance.now();
    const status = el('div', { class: 'loading', role: 'status' });
    const tick = () => { status.textContent = `Loading ${sel.tool} for ${sel.host || 'default host'}… ${((performance.now() - started) / 1000).toFixed(0)} s`; };
    tick();
    const timer = window.setInterval(tick, 500);
    root.appendChild(status);
    try {
      const data = await fetchJson<T>(dataUrl(sel, extra), signal);
      const left = hostsLeftOut(data);
      // A page that loads again (another view, another option) keeps one note.
      root.querySelector('#hosts-left-out')?.remove();
      if (left.length) root.appendChild(leftOutNote(left));
      return data;
    } finally {
      window.clearInterval(timer);
      status.remove();
    }
  };
  return { sel, tools, root, signal, load };
}

export function showError(root: HTMLElement, e: unknown): void {
  clear(root);
  root.appendChild(message('error', describeError(e)));
}

// The server's CSV of a table tool (data_csv), for the tools that offer it.
export function csvButton(sel: Selection): HTMLAnchorElement {
  return el('a', { class: 'button', id: 'csv-export', download: '', title: 'Download this table as CSV (the server\'s data_csv)',
    href: apiUrl('data_csv', { run: sel.run, tag: sel.tool, host: sel.host }) }, 'Export as CSV');
}
