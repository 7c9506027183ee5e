// App shell: run/tool/host selectors kept in the URL (?run=&tool=&host=), and
// a page per tool.
import { apiUrl, fetchJson, Selection } from './api';
import { el, clear, message } from './dom';
import { makeContext, PageRenderer, showError, describeError } from './page';
import { renderOverview } from './pages/overview';
import { renderInputPipeline } from './pages/input_pipeline';
import { renderOpStats } from './pages/op_stats';
import { renderKernelStats } from './pages/kernel_stats';
import { renderMemoryProfile } from './pages/memory_profile';
import { renderTfData } from './pages/tf_data';
import { renderPodViewer } from './pages/pod_viewer';
import { renderGeneric } from './pages/generic';
import { renderHloStats } from './pages/hlo_stats';
import { renderOpProfile } from './pages/op_profile';
import { renderRoofline } from './pages/roofline';
import { renderTraceViewer } from './trace/page';

const DISPLAY_NAMES: Record<string, string> = {
  overview_page: 'Overview Page', input_pipeline_analyzer: 'Input Pipeline Analysis', framework_op_stats: 'Framework Op Stats',
  tensorflow_stats: 'TensorFlow Stats', kernel_stats: 'Kernel Stats', trace_viewer: 'Trace Viewer', memory_profile: 'Memory Profile',
  tf_data_bottleneck_analysis: 'tf.data Bottleneck Analysis', pod_viewer: 'Pod Viewer', op_profile: 'HLO Op Profile',
  hlo_stats: 'HLO Op Stats', roofline_model: 'Roofline Model', memory_viewer: 'Memory Viewer', graph_viewer: 'Graph Viewer',
  megascale_stats: 'Megascale Viewer', inference_profile: 'Inference Profile',
};

// Tools the server converts although run_tools does not list them.
const HIDDEN_TOOLS = ['pod_viewer', 'tf_data_bottleneck_analysis', 'kernel_stats'];

// Tool names carry era suffixes: '^' (from XPlane), '@' (proto/streaming), '#' (gzip file).
export function baseToolName(tool: string): string { return tool.replace(/[\^@#]+$/, ''); }

function displayName(tool: string): string {
  const base = baseToolName(tool);
  const name = DISPLAY_NAMES[base] ?? base;
  return tool.startsWith('trace_viewer@') ? `${name} (streaming)` : name;
}

function rendererFor(tool: string): PageRenderer {
  switch (baseToolName(tool)) {
    case 'overview_page': return renderOverview;
    case 'input_pipeline_analyzer': return renderInputPipeline;
    case 'framework_op_stats': case 'tensorflow_stats': return renderOpStats;
    case 'kernel_stats': return renderKernelStats;
    case 'trace_viewer': return renderTraceViewer;
    case 'memory_profile': return renderMemoryProfile;
    case 'tf_data_bottleneck_analysis': return renderTfData;
    case 'pod_viewer': return renderPodViewer;
    case 'hlo_stats': return renderHloStats;
    case 'op_profile': return renderOpProfile;
    case 'roofline_model': return renderRoofline;
    default: return renderGeneric;
  }
}

interface HostEntry { hostname: string }

class App {
  private readonly runSelect = el('select', { id: 'run-select', 'aria-label': 'Run' });
  private readonly toolSelect = el('select', { id: 'tool-select', 'aria-label': 'Tool' });
  private readonly hostSelect = el('select', { id: 'host-select', 'aria-label': 'Host' });
  private readonly content = el('main', { id: 'content' });
  private pageAbort: AbortController | null = null;
  private sel: Selection = { run: '', tool: '', host: '' };

  constructor(mount: HTMLElement) {
    const label = (text: string, control: HTMLElement) => el('label', { class: 'selector' }, el('span', {}, text), control);
    mount.append(
      el('header', { class: 'topbar' }, el('a', { class: 'brand', href: '?' }, 'tbprof'),
        label('Run', this.runSelect), label('Tool', this.toolSelect), label('Host', this.hostSelect)),
      this.content);
    this.runSelect.addEventListener('change', () => this.choose({ run: this.runSelect.value, tool: '', host: '' }));
    this.toolSelect.addEventListener('change', () => this.choose({ ...this.sel, tool: this.toolSelect.value }));
    this.hostSelect.addEventListener('change', () => this.choose({ ...this.sel, host: this.hostSelect.value }));
    window.addEventListener('popstate', () => void this.start(false));
  }

  private fromUrl(): Selection {
    const q = new URLSearchParams(location.search);
    return { run: q.get('run') ?? '', tool: q.get('tool') ?? q.get('tag') ?? '', host: q.get('host') ?? '' };
  }

  private writeUrl(push: boolean): void {
    const q = new URLSearchParams(location.search);
    q.delete('tag');
    const set = (k: string, v: string) => (v ? q.set(k, v) : q.delete(k));
    set('run', this.sel.run); set('tool', this.sel.tool); set('host', this.sel.host);
    const url = `${location.pathname}?${q.toString()}`;
    if (url === `${location.pathname}${location.search}`) return;
    if (push) history.pushState(null, '', url); else history.replaceState(null, '', url);
  }

  private async choose(partial: Selection): Promise<void> {
    // A new tool or run invalidates page-specific URL state (e.g. the trace window).
    const q = new URLSearchParams(location.search);
    for (const k of Array.from(q.keys())) if (!['run', 'tool', 'host', 'tag'].includes(k)) q.delete(k);
    history.replaceState(null, '', `${location.pathname}?${q.toString()}`);
    await this.resolve(partial, true);
  }

  async start(push = false): Promise<void> {
    await this.resolve(this.fromUrl(), push, true);
  }

  private fill(select: HTMLSelectElement, values: string[], chosen: string, label: (v: string) => string = (v) => v): void {
    clear(select);
    for (const v of values) select.appendChild(el('option', { value: v }, label(v)));
    select.value = chosen;
    select.disabled = values.length === 0;
  }

  // Picks run, tool and host from the server's lists, keeping the wanted ones when valid.
  private async resolve(want: Selection, push: boolean, first = false): Promise<void> {
    this.pageAbort?.abort();
    const status = (text: string) => { clear(this.content); this.content.appendChild(el('div', { class: 'loading', role: 'status' }, text)); };
    try {
      status('Loading runs…');
      const runs = await fetchJson<string[]>(apiUrl('runs', {}));
      if (!Array.isArray(runs) || runs.length === 0) {
        this.fill(this.runSelect, [], ''); this.fill(this.toolSelect, [], ''); this.fill(this.hostSelect, [], '');
        clear(this.content);
        this.content.appendChild(message('empty', 'No profile runs were found in the log directory. Capture a profile (or run `tbprof synth`) and reload.'));
        return;
      }
      const run = runs.includes(want.run) ? want.run : runs[0];
      if (first && want.run && want.run !== run) console.warn(`run ${want.run} not found; showing ${run}`);
      this.fill(this.runSelect, runs, run);
      status('Loading tools…');
      const tools = await fetchJson<string[]>(apiUrl('run_tools', { run }));
      if (!Array.isArray(tools) || tools.length === 0) {
        this.sel = { run, tool: '', host: '' };
        this.fill(this.toolSelect, [], ''); this.fill(this.hostSelect, [], '');
        this.writeUrl(push);
        clear(this.content);
        this.content.appendChild(message('empty', `Run "${run}" has no profile data that tbprof can show.`));
        return;
      }
      const wantBase = baseToolName(want.tool);
      let tool = tools.includes(want.tool) ? want.tool : tools.find((t) => want.tool && baseToolName(t) === wantBase);
      // xprof leaves some servable tools out of run_tools (pod_viewer); a deep link may still name one.
      const offered = tool === undefined && HIDDEN_TOOLS.includes(want.tool) ? [...tools, want.tool] : tools;
      tool = tool ?? (offered.includes(want.tool) ? want.tool : tools[0]);
      this.fill(this.toolSelect, offered, tool, displayName);
      status('Loading hosts…');
      const hostList = await fetchJson<(HostEntry | string)[]>(apiUrl('hosts', { run, tag: tool }));
      let hosts = (Array.isArray(hostList) ? hostList : []).map((h) => (typeof h === 'string' ? h : h.hostname));
      if (hosts.length === 0) hosts = [''];
      const host = hosts.includes(want.host) ? want.host : hosts[0];
      this.fill(this.hostSelect, hosts, host, (h) => h || 'default');
      this.sel = { run, tool, host };
      this.writeUrl(push);
      document.title = `${displayName(tool)} · ${run} · tbprof`;
      await this.renderPage();
    } catch (e) {
      if ((e as Error).name === 'AbortError') return;
      clear(this.content);
      this.content.appendChild(message('error', describeError(e)));
    }
  }

  private async renderPage(): Promise<void> {
    this.pageAbort?.abort();
    const abort = new AbortController();
    this.pageAbort = abort;
    clear(this.content);
    const pageRoot = el('div', { class: 'page', 'data-tool': baseToolName(this.sel.tool) });
    this.content.appendChild(pageRoot);
    try {
      await rendererFor(this.sel.tool)(makeContext(this.sel, pageRoot, abort.signal));
      if (!abort.signal.aborted) pageRoot.setAttribute('data-ready', 'true');
    } catch (e) {
      if ((e as Error).name === 'AbortError' || abort.signal.aborted) return;
      showError(pageRoot, e);
      pageRoot.setAttribute('data-ready', 'error');
    }
  }
}

const mount = document.getElementById('app');
if (mount) void new App(mount).start();
