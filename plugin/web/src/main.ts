// App shell: run/tool/host selectors kept in the URL (?run=&tool=&host=), and
// a page per tool.
import { apiUrl, fetchJson, Selection } from './api';
import { el, clear, message } from './dom';
import { makeContext, PageRenderer, showError, describeError, baseToolName, toolLink } from './page';
import { renderOverview } from './pages/overview';
import { renderInputPipeline } from './pages/input_pipeline';
import { renderOpStats } from './pages/op_stats';
import { renderKernelStats } from './pages/kernel_stats';
import { renderMemoryProfile } from './pages/memory_profile';
import { renderTfData } from './pages/tf_data';
import { renderPodViewer } from './pages/pod_viewer';
import { renderGeneric } from './pages/generic';
import { renderMemoryViewer } from './pages/memory_viewer';
import { renderGraphViewer } from './pages/graph_viewer';
import { renderHloStats } from './pages/hlo_stats';
import { renderOpProfile } from './pages/op_profile';
import { renderRoofline } from './pages/roofline';
import { renderTfprof } from './pages/tfprof';
import { renderTraceAnalysis } from './pages/trace_analysis';
import { renderTraceViewer } from './trace/page';
import { installCaptureButton } from './capture';
import { renderComparePage, CompareParams } from './pages/compare';

// The server's tool table (/tool_table): each tool's menu name, its other name (xprof lists both
// framework_op_stats and its older name tensorflow_stats: the menu shows the first one the run lists, a link
// with the other name opens it), and the tools /run_tools leaves out but /hosts offers (pod_viewer).
interface ToolTableEntry { name: string; display_name: string; same_as?: string; offered_by_hosts?: boolean }
let toolTable = new Map<string, ToolTableEntry>();
async function loadToolTable(): Promise<void> {
  if (toolTable.size > 0) return;
  const entries = await fetchJson<ToolTableEntry[]>(apiUrl('tool_table', {})).catch(() => []);
  if (Array.isArray(entries)) toolTable = new Map(entries.map((e) => [e.name, e]));
}
function otherNameOf(tool: string): string | undefined { return toolTable.get(baseToolName(tool))?.same_as; }
function unlistedTools(): string[] { return [...toolTable.values()].filter((e) => e.offered_by_hosts).map((e) => e.name); }

function menuTools(tools: string[]): string[] {
  return tools.filter((t, i) => {
    const alias = otherNameOf(t);
    return !alias || !tools.slice(0, i).some((u) => baseToolName(u) === alias);
  });
}

function displayName(tool: string): string {
  const entry = toolTable.get(tool) ?? toolTable.get(baseToolName(tool));
  return entry?.display_name ?? baseToolName(tool);
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
    case 'memory_viewer': return renderMemoryViewer;
    case 'graph_viewer': return renderGraphViewer;
    case 'hlo_stats': return renderHloStats;
    case 'op_profile': return renderOpProfile;
    case 'roofline_model': return renderRoofline;
    case 'tfprof': return renderTfprof;
    case 'trace_analysis': return renderTraceAnalysis;
    default: return renderGeneric;
  }
}

// `problem` ("empty" or "damaged") marks a host whose profile file cannot be read.
interface HostEntry { hostname: string; problem?: string }

// What the user picked from a menu is a preference (kept when the new run or tool has it);
// what a link names is a demand (a page says when the run lacks it).
interface Wanted { toolIsPreference?: boolean; hostIsPreference?: boolean }

class App {
  private readonly runSelect = el('select', { id: 'run-select', 'aria-label': 'Run' });
  private readonly toolSelect = el('select', { id: 'tool-select', 'aria-label': 'Tool' });
  private readonly hostSelect = el('select', { id: 'host-select', 'aria-label': 'Host' });
  private readonly content = el('main', { id: 'content' });
  // "Compare with…": this run as B, against a baseline chosen on the compare page.
  private readonly compareLink = el('a', { id: 'compare-link', class: 'button', href: '?view=compare',
    title: 'Compare this run with another run (every delta is this run minus the baseline)' }, 'Compare with…');
  private pageAbort: AbortController | null = null;
  private sel: Selection = { run: '', tool: '', host: '' };
  private tools: string[] = [];

  constructor(mount: HTMLElement) {
    const label = (text: string, control: HTMLElement) => el('label', { class: 'selector' }, el('span', {}, text), control);
    const topbar = el('header', { class: 'topbar' }, el('a', { class: 'brand', href: '?' }, 'tbprof'),
      label('Run', this.runSelect), label('Tool', this.toolSelect), label('Host', this.hostSelect), this.compareLink);
    mount.append(topbar, this.content);
    void installCaptureButton(topbar, () => void this.start(false));
    this.runSelect.addEventListener('change', () => this.choose({ run: this.runSelect.value, tool: this.sel.tool, host: '' }, { toolIsPreference: true, hostIsPreference: true }));
    this.toolSelect.addEventListener('change', () => this.choose({ ...this.sel, tool: this.toolSelect.value }, { hostIsPreference: true }));
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

  private async choose(partial: Selection, wanted: Wanted = {}): Promise<void> {
    // A new tool or run invalidates page-specific URL state (e.g. the trace window).
    const q = new URLSearchParams(location.search);
    for (const k of Array.from(q.keys())) if (!['run', 'tool', 'host', 'tag'].includes(k)) q.delete(k);
    history.replaceState(null, '', `${location.pathname}?${q.toString()}`);
    await this.resolve(partial, true, wanted);
  }

  async start(push = false): Promise<void> {
    const q = new URLSearchParams(location.search);
    if (q.get('view') === 'compare') {
      await this.showCompare({ run: q.get('run') ?? '', host: q.get('host') ?? '', base_run: q.get('base_run') ?? '',
        base_host: q.get('base_host') ?? '', align: q.get('align') ?? '', step: q.get('step') ?? '',
        base_step: q.get('base_step') ?? '', tool: q.get('tool') ?? '' });
      return;
    }
    await this.resolve(this.fromUrl(), push);
  }

  private async showCompare(params: CompareParams): Promise<void> {
    this.pageAbort?.abort();
    const abort = new AbortController();
    this.pageAbort = abort;
    clear(this.content);
    document.title = `Compare · tbprof`;
    const pageRoot = el('div', { class: 'page', 'data-tool': 'compare' });
    this.content.appendChild(pageRoot);
    void this.showCompareSelection(params, abort.signal);
    const navigate = (p: CompareParams) => {
      const next = new URLSearchParams({ view: 'compare' });
      for (const [k, v] of Object.entries(p)) if (v) next.set(k, v);
      history.pushState(null, '', `${location.pathname}?${next.toString()}`);
      void this.showCompare(p);
    };
    try {
      await renderComparePage(pageRoot, params, abort.signal, navigate);
      if (!abort.signal.aborted) pageRoot.setAttribute('data-ready', 'true');
    } catch (e) {
      if ((e as Error).name === 'AbortError' || abort.signal.aborted) return;
      showError(pageRoot, e);
      pageRoot.setAttribute('data-ready', 'error');
    }
  }

  // The top bar on the compare page keeps showing run B, the tool the user came from (or the run's first) and
  // B's host; '' is the server's default host, which combines a run's hosts.
  private async showCompareSelection(p: CompareParams, signal: AbortSignal): Promise<void> {
    const runs = await fetchJson<string[]>(apiUrl('runs', {}), signal).catch(() => []);
    if (signal.aborted) return;
    const known = Array.isArray(runs) ? runs : [];
    if (!p.run || !known.includes(p.run)) {
      this.fill(this.runSelect, ['', ...known], '', (r) => r || '— choose a run —');
      this.fill(this.toolSelect, [], ''); this.fill(this.hostSelect, [], '');
      return;
    }
    this.fill(this.runSelect, known, p.run);
    await loadToolTable();
    const listed = await fetchJson<string[]>(apiUrl('run_tools', { run: p.run }), signal).catch(() => []);
    if (signal.aborted) return;
    const offered = menuTools(Array.isArray(listed) ? listed : []);
    const want = p.tool ?? '';
    const tool = offered.includes(want) ? want : offered.find((t) => want && baseToolName(t) === baseToolName(want)) ?? offered[0] ?? '';
    this.fill(this.toolSelect, offered, tool, displayName);
    const hostList = tool ? await fetchJson<(HostEntry | string)[]>(apiUrl('hosts', { run: p.run, tag: tool }), signal).catch(() => []) : [];
    if (signal.aborted) return;
    const hosts = (Array.isArray(hostList) ? hostList : []).map((h) => (typeof h === 'string' ? h : h.hostname));
    if (!hosts.includes(p.host)) hosts.unshift(p.host);
    this.fill(this.hostSelect, hosts, p.host, (h) => h || 'default');
    this.tools = offered;
    this.sel = { run: p.run, tool, host: p.host };
  }

  private fill(select: HTMLSelectElement, values: string[], chosen: string, label: (v: string) => string = (v) => v): void {
    clear(select);
    for (const v of values) select.appendChild(el('option', { value: v }, label(v)));
    select.value = chosen;
    select.disabled = values.length === 0;
  }

  // Picks run, tool and host from the server's lists, keeping the wanted ones when valid.
  private async resolve(want: Selection, push: boolean, wanted: Wanted = {}): Promise<void> {
    this.pageAbort?.abort();
    const status = (text: string) => { clear(this.content); this.content.appendChild(el('div', { class: 'loading', role: 'status' }, text)); };
    try {
      status('Loading runs…');
      // The tool table is wanted next: asked for together with the runs (a page's first picture waits on both).
      const [runs] = await Promise.all([fetchJson<string[]>(apiUrl('runs', {})), loadToolTable()]);
      if (!Array.isArray(runs) || runs.length === 0) {
        this.fill(this.runSelect, [], ''); this.fill(this.toolSelect, [], ''); this.fill(this.hostSelect, [], '');
        clear(this.content);
        this.content.appendChild(message('empty', 'No profile runs were found in the log directory. Capture a profile (or run `tbprof synth`) and reload.'));
        return;
      }
      if (want.run && !runs.includes(want.run)) {
        this.sel = { run: '', tool: '', host: '' };
        this.fill(this.runSelect, ['', ...runs], '', (r) => r || '— choose a run —');
        this.fill(this.toolSelect, [], ''); this.fill(this.hostSelect, [], '');
        clear(this.content);
        const list = el('ul', { id: 'available-runs' }, ...runs.map((r) => el('li', {}, el('a', { href: `?${new URLSearchParams({ run: r })}` }, r))));
        this.content.appendChild(el('div', { class: 'page', 'data-ready': 'missing-run' },
          message('info', `There is no run "${want.run}" in this log directory. The runs are:`), list));
        return;
      }
      const run = want.run || runs[0];
      this.fill(this.runSelect, runs, run);
      status('Loading tools…');
      await loadToolTable();
      const tools = await fetchJson<string[]>(apiUrl('run_tools', { run }));
      if (!Array.isArray(tools) || tools.length === 0) {
        this.sel = { run, tool: '', host: '' };
        this.fill(this.toolSelect, [], ''); this.fill(this.hostSelect, [], '');
        this.writeUrl(push);
        clear(this.content);
        this.content.appendChild(message('empty', `Run "${run}" has no profile data that tbprof can show.`));
        return;
      }
      // The tools /run_tools leaves out, each asked of /hosts at once rather than one after another.
      const extras = unlistedTools().filter((extra) => !tools.some((t) => baseToolName(t) === extra));
      const servable = await Promise.all(extras.map((extra) => fetchJson<unknown[]>(apiUrl('hosts', { run, tag: extra })).catch(() => [])));
      extras.forEach((extra, i) => { if (Array.isArray(servable[i]) && servable[i].length > 0) tools.push(extra); });
      const offered = menuTools(tools);
      this.tools = offered;
      const wantBase = baseToolName(want.tool);
      const aliasBase = otherNameOf(want.tool);
      const tool = offered.includes(want.tool) ? want.tool
        : offered.find((t) => want.tool && (baseToolName(t) === wantBase || baseToolName(t) === aliasBase));
      if (want.tool && tool === undefined && !wanted.toolIsPreference) {
        // A link to a tool this run lacks: say so and list what it has, rather than silently showing another page.
        this.sel = { run, tool: '', host: '' };
        this.fill(this.toolSelect, ['', ...offered], '', (t) => (t ? displayName(t) : '— choose a tool —'));
        this.fill(this.hostSelect, [], '');
        clear(this.content);
        const list = el('ul', { id: 'available-tools' }, ...offered.map((t) => el('li', {}, toolLink({ run, tool: '', host: '' }, t, displayName(t)))));
        this.content.appendChild(el('div', { class: 'page', 'data-ready': 'missing-tool' },
          message('info', `Run "${run}" has no ${displayName(want.tool)} (${want.tool}). It has these tools:`), list));
        document.title = `${run} · tbprof`;
        return;
      }
      this.fill(this.toolSelect, offered, tool ?? offered[0], displayName);
      status('Loading hosts…');
      const chosen = tool ?? offered[0];
      const hostList = await fetchJson<(HostEntry | string)[]>(apiUrl('hosts', { run, tag: chosen }));
      const entries = (Array.isArray(hostList) ? hostList : []).map((h) => (typeof h === 'string' ? { hostname: h } : h));
      let hosts = entries.map((h) => h.hostname);
      const problems = new Map(entries.filter((h) => h.problem).map((h) => [h.hostname, h.problem ?? '']));
      const hostLabel = (h: string) => (h || 'default') + (problems.has(h) ? ` (${problems.get(h)})` : '');
      if (hosts.length === 0) hosts = [''];
      if (want.host && !hosts.includes(want.host) && !wanted.hostIsPreference) {
        // A link to a host this tool cannot show: say so and list the hosts, rather than showing another one.
        this.sel = { run, tool: chosen, host: '' };
        this.fill(this.hostSelect, ['', ...hosts], '', (h) => (h ? hostLabel(h) : '— choose a host —'));
        clear(this.content);
        const list = el('ul', { id: 'available-hosts' }, ...hosts.map((h) => el('li', {}, el('a', { href: `?${new URLSearchParams({ run, tool: chosen, host: h })}` }, hostLabel(h)))));
        const why = want.host === 'ALL_HOSTS' ? `${displayName(chosen)} shows one host at a time.` : `Run "${run}" has no host "${want.host}" for ${displayName(chosen)}.`;
        this.content.appendChild(el('div', { class: 'page', 'data-ready': 'missing-host' }, message('info', `${why} Its hosts are:`), list));
        document.title = `${displayName(chosen)} · ${run} · tbprof`;
        return;
      }
      // Without a host asked for: the first whose profile can be read (a damaged one stays listed, marked).
      const host = hosts.includes(want.host) ? want.host : (hosts.find((h) => !problems.has(h)) ?? hosts[0]);
      this.fill(this.hostSelect, hosts, host, hostLabel);
      this.sel = { run, tool: chosen, host };
      this.compareLink.setAttribute('href', `?${new URLSearchParams({ view: 'compare', run, host, tool: chosen })}`);
      this.writeUrl(push);
      document.title = `${displayName(chosen)} · ${run} · tbprof`;
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
      await rendererFor(this.sel.tool)(makeContext(this.sel, this.tools, pageRoot, abort.signal));
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
