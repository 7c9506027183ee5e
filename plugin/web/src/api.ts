// Every request goes to the serving origin under /data/plugin/profile.

export const API_ROOT = (() => {
  const i = location.pathname.indexOf('/data/plugin/profile');
  return (i >= 0 ? location.pathname.slice(0, i) : '') + '/data/plugin/profile';
})();

export class ApiError extends Error {
  constructor(readonly status: number, readonly body: string, readonly url: string) {
    super(`${status === 0 ? 'Network error' : `HTTP ${status}`}: ${body.trim() || 'no details'}`);
  }
}

export function apiUrl(route: string, params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
  const qs = q.toString();
  return `${API_ROOT}/${route}${qs ? '?' + qs : ''}`;
}

export async function fetchText(url: string, signal?: AbortSignal): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url, { signal, credentials: 'same-origin' });
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    throw new ApiError(0, String((e as Error).message), url);
  }
  const body = await res.text();
  if (!res.ok) throw new ApiError(res.status, body, url);
  return body;
}

export async function fetchJson<T = unknown>(url: string, signal?: AbortSignal): Promise<T> {
  const body = await fetchText(url, signal);
  try {
    return JSON.parse(body) as T;
  } catch {
    throw new ApiError(200, `response is not JSON (${body.slice(0, 80)})`, url);
  }
}

export interface Selection { run: string; tool: string; host: string }

export function dataUrl(sel: Selection, extra: Record<string, string | number | undefined> = {}): string {
  return apiUrl('data', { run: sel.run, tag: sel.tool, host: sel.host, ...extra });
}
