// The Capture Profile dialog: asks the server's capture_profile route (xprof's
// parameters and answers) to sample running jobs into a new run. The server
// traces for the whole duration before it answers, so the dialog shows the
// time spent against the time the capture needs.
import { apiUrl, fetchJson } from './api';
import { el, clear } from './dom';

export interface CaptureRequest {
  service_addr: string;
  duration: number;  // ms
  num_retry: number;
  worker_list: string;
  host_tracer_level: number;
  device_tracer_level: number;
  python_tracer_level: number;
  delay: number;  // ms
}

export interface CaptureAnswer { result?: string; error?: string }

// The header the server requires its capture token in (read from /config,
// which pages of other origins cannot read), so other sites cannot capture.
const TOKEN_HEADER = 'X-Tbprof-Token';

// Failures come back as HTTP 500 with {"error": ...} (403/405 when the server
// refuses the request itself), so the body is read whatever the status.
export async function requestCapture(req: CaptureRequest, token: string, signal?: AbortSignal): Promise<CaptureAnswer> {
  const params: Record<string, string | number> = { ...req, is_tpu_name: 'false' };
  let res: Response;
  try {
    res = await fetch(apiUrl('capture_profile', params), {
      method: 'POST', signal, credentials: 'same-origin', headers: { [TOKEN_HEADER]: token },
    });
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    return { error: `the server did not answer (${(e as Error).message})` };
  }
  const body = await res.text();
  try {
    const parsed = JSON.parse(body) as CaptureAnswer;
    if (typeof parsed.result === 'string' || typeof parsed.error === 'string') return parsed;
  } catch { /* reported below */ }
  return { error: `HTTP ${res.status}: ${body.trim().slice(0, 200) || 'no details'}` };
}

function numberField(name: string, label: string, value: number, min: number): [HTMLLabelElement, HTMLInputElement] {
  const input = el('input', { name, type: 'number', min: String(min), step: '1', value: String(value), required: '' });
  return [el('label', { class: 'capture-field' }, el('span', {}, label), input), input];
}

function selectField(name: string, label: string, options: [number, string][], chosen: number): [HTMLLabelElement, HTMLSelectElement] {
  const select = el('select', { name });
  for (const [v, text] of options) select.appendChild(el('option', { value: String(v) }, text));
  select.value = String(chosen);
  return [el('label', { class: 'capture-field' }, el('span', {}, label), select), select];
}

function buildDialog(token: string, onCaptured: () => void): HTMLDialogElement {
  const address = el('input', { name: 'service_addr', type: 'text', required: '', placeholder: 'localhost:6009', autocomplete: 'off' });
  const workers = el('input', { name: 'worker_list', type: 'text', placeholder: 'optional: host:port,host:port', autocomplete: 'off' });
  const [durationLabel, duration] = numberField('duration', 'Profiling duration (ms)', 1000, 1);
  const [retryLabel, retries] = numberField('num_retry', 'Automatically retry N times when no trace event is collected', 3, 0);
  const [delayLabel, delay] = numberField('delay', 'Delay before tracing starts (ms)', 0, 0);
  const [hostLabel, host] = selectField('host_tracer_level', 'Host trace level',
    [[1, 'Critical'], [2, 'Info'], [3, 'Verbose']], 2);
  const [deviceLabel, device] = selectField('device_tracer_level', 'Device trace level', [[0, 'Off'], [1, 'On']], 1);
  const [pythonLabel, python] = selectField('python_tracer_level', 'Python trace level', [[0, 'Disable'], [1, 'Enable']], 0);
  const progress = el('progress', { class: 'capture-progress', max: '100' });
  const status = el('div', { class: 'capture-status', role: 'status', 'aria-live': 'polite' });
  const submit = el('button', { type: 'submit', class: 'capture-submit' }, 'Capture');
  const close = el('button', { type: 'button', class: 'capture-close' }, 'Close');
  progress.hidden = true;

  const form = el('form', { class: 'capture-form', method: 'dialog' },
    el('h2', {}, 'Capture Profile'),
    el('label', { class: 'capture-field' }, el('span', {}, 'Profile Service URL(s) or TPU name'), address),
    el('label', { class: 'capture-field' }, el('span', {}, 'Worker list'), workers),
    durationLabel, retryLabel, delayLabel, hostLabel, deviceLabel, pythonLabel,
    progress, status, el('div', { class: 'capture-buttons' }, submit, close));
  const dialog = el('dialog', { id: 'capture-dialog', 'aria-label': 'Capture Profile' }, form);
  let busy: AbortController | null = null;

  close.addEventListener('click', () => { busy?.abort(); dialog.close(); });
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (busy) return;
    const req: CaptureRequest = {
      service_addr: address.value.trim(), worker_list: workers.value.trim(),
      duration: Number(duration.value), num_retry: Number(retries.value), delay: Number(delay.value),
      host_tracer_level: Number(host.value), device_tracer_level: Number(device.value),
      python_tracer_level: Number(python.value),
    };
    const abort = new AbortController();
    busy = abort;
    submit.disabled = true;
    progress.hidden = false;
    clear(status);
    // Each attempt traces for the duration after the delay; the bar fills over one attempt.
    const expectedMs = Math.max(1, req.duration + req.delay);
    const started = performance.now();
    const tick = () => {
      const spent = performance.now() - started;
      progress.value = Math.min(99, (100 * spent) / expectedMs);
      status.textContent = `Capturing… ${(spent / 1000).toFixed(1)} s of ${(expectedMs / 1000).toFixed(1)} s per attempt`;
    };
    tick();
    const timer = window.setInterval(tick, 200);
    void requestCapture(req, token, abort.signal).then((answer) => {
      if (answer.result !== undefined) {
        status.textContent = answer.result;
        status.className = 'capture-status capture-ok';
        onCaptured();
      } else {
        status.textContent = `Failed to capture profile: ${answer.error ?? ''}`;
        status.className = 'capture-status capture-error';
      }
    }, (e: Error) => {
      if (e.name !== 'AbortError') status.textContent = `Failed to capture profile: ${e.message}`;
    }).finally(() => {
      window.clearInterval(timer);
      progress.hidden = true;
      submit.disabled = false;
      busy = null;
    });
  });
  return dialog;
}

// Adds the Capture Profile button to `bar` unless the server's config hides it.
export async function installCaptureButton(bar: HTMLElement, onCaptured: () => void): Promise<void> {
  let hidden = true;
  let token = '';
  try {
    const config = await fetchJson<{ hideCaptureProfileButton?: boolean; captureToken?: string }>(apiUrl('config', {}));
    hidden = config.hideCaptureProfileButton === true;
    token = typeof config.captureToken === 'string' ? config.captureToken : '';
  } catch {
    return;  // an older server without /config: no capture either
  }
  if (hidden) return;
  const dialog = buildDialog(token, onCaptured);
  const button = el('button', { type: 'button', id: 'capture-button', class: 'capture-button' }, 'Capture Profile');
  button.addEventListener('click', () => dialog.showModal());
  bar.append(button, dialog);
}
