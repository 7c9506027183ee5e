// What every tool page gets: the selection, a place to draw, and a loader that
// shows progress and turns failures into readable messages.
import { Selection, dataUrl, fetchJson, ApiError } from './api';
import { el, clear, message } from './dom';

export interface PageContext {
  sel: Selection;
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

export function makeContext(sel: Selection, root: HTMLElement, signal: AbortSignal): PageContext {
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
  return { sel, root, signal, load };
}

export function showError(root: HTMLElement, e: unknown): void {
  clear(root);
  root.appendChild(message('error', describeError(e)));
}
