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

export function makeContext(sel: Selection, tools: string[], root: HTMLElement, signal: AbortSignal): PageContext {
  const load = async <T,>(extra: Record<string, string | number | undefined> = {}): Promise<T> => {
    const started = performance.now();
    const status = el('div', { class: 'loading', role: 'status' });
    const tick = () => { status.textContent = `Loading ${sel.tool} for ${sel.host || 'default host'}… ${((performance.now() - started) / 1000).toFixed(0)} s`; };
    tick();
    const timer = window.setInterval(tick, 500);
    root.appendChild(status);
    try {
      return await fetchJson<T>(dataUrl(sel, extra), signal);
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
