// Graph Viewer: the HLO graph around one node, laid out with dagre (bundled,
// no network) and drawn as SVG. Nodes are coloured by op category; a fusion's
// "+" expands its fused computation in place; clicking a node re-centres on it.
// Opened from a link (hlo_stats, op_profile, a trace event) it is centred on
// that op in its program; a module name that several programs share gets the
// list of them, and a node the module lacks gets an error, never a guess.
import dagre from '@dagrejs/dagre';
import { apiUrl, fetchText, ApiError } from '../api';
import { graphViewerHref, busiestProgram } from './xla_common';
import { el, svg, section, message, clear } from '../dom';
import { PageContext } from '../page';

export interface GraphNode {
  name: string; opcode: string; shape: string; category: string; fusionKind: string; parent: string; opName: string;
  source: string; hops: number; center: boolean; hiddenOperands: number; hiddenUsers: number; parameterNumber: number; fusedRoot: boolean;
}
export interface GraphEdge { from: string; to: string; operand: number }
export interface HloGraph { moduleName: string; programId: string; computation: string; center: string; nodes: GraphNode[]; edges: GraphEdge[] }
// A program a link could mean (graph_viewer's type=programs).
interface ProgramChoice { moduleName: string; programId: string }

const FILL: Record<string, string> = {
  async: '#bbdefb', collective: '#d7ccc8', contraction: '#5c6bc0', control: '#66bb6a', fusion: '#e0e0e0',
  data_movement: '#c8e6c9', parameter: '#ffcc80', reduction: '#ce93d8', broadcast: '#fff59d', constant: '#eeeeee', elementwise: '#ffffff',
};
const DARK = new Set(['contraction', 'control']);
const NODE_H = 40;

interface Laid { x: number; y: number; width: number; height: number }

// Lays out the visible part of the graph: top-level nodes, plus the members
// of the expanded fusions as children of their fusion (a dagre cluster).
// Edges that touch an expanded fusion enter at its parameter and leave from its root.
export function layoutGraph(g: HloGraph, expanded: Set<string>): { graph: InstanceType<typeof dagre.graphlib.Graph>; ms: number } {
  const started = performance.now();
  const dg = new dagre.graphlib.Graph({ compound: true, multigraph: true });
  // longest-path ranking: network simplex (dagre's default) costs seconds at 500 nodes.
  dg.setGraph({ rankdir: 'TB', nodesep: 18, ranksep: 36, marginx: 10, marginy: 10, ranker: 'longest-path' });
  dg.setDefaultEdgeLabel(() => ({}));
  const visible = new Map<string, GraphNode>();
  for (const n of g.nodes) {
    if (n.parent && !expanded.has(n.parent)) continue;
    visible.set(n.name, n);
  }
  const members = new Map<string, GraphNode[]>();
  for (const n of visible.values()) {
    if (n.parent) (members.get(n.parent) ?? members.set(n.parent, []).get(n.parent)!).push(n);
  }
  for (const n of visible.values()) {
    const width = Math.max(90, Math.min(260, 7 * Math.max(n.name.length, n.opcode.length + 2)));
    dg.setNode(n.name, { width, height: NODE_H, label: n.name });
    if (n.parent) dg.setParent(n.name, n.parent);
  }
  const end = (name: string, asTarget: boolean, operand: number): string => {
    const inside = members.get(name);
    if (!inside) return name;
    const hit = inside.find((m) => (asTarget ? m.parameterNumber === operand : m.fusedRoot));
    return hit ? hit.name : name;
  };
  let i = 0;
  for (const e of g.edges) {
    if (!visible.has(e.from) || !visible.has(e.to)) continue;
    const internal = !!visible.get(e.from)!.parent;
    const from = internal ? e.from : end(e.from, false, 0);
    const to = internal ? e.to : end(e.to, true, e.operand);
    if (members.has(from) || members.has(to)) continue;  // a cluster cannot be an edge end
    dg.setEdge(from, to, {}, String(i++));
  }
  dagre.layout(dg);
  return { graph: dg, ms: performance.now() - started };
}

// A laid-out graph's clusters (fused computations) and edges, drawn first so
// that nodes draw over them.
function drawClustersAndEdges(root: SVGElement, graph: InstanceType<typeof dagre.graphlib.Graph>): void {
  for (const name of graph.nodes()) {
    if (!graph.children(name)?.length) continue;
    const b = graph.node(name) as unknown as Laid;
    root.appendChild(svg('rect', { x: b.x - b.width / 2, y: b.y - b.height / 2, width: b.width, height: b.height, rx: 8,
      fill: '#f5f5f5', stroke: '#9e9e9e', 'stroke-dasharray': '4 2', class: 'gv-cluster', 'data-name': name }));
    root.appendChild(svg('text', { x: b.x - b.width / 2 + 6, y: b.y - b.height / 2 + 12, 'font-size': 11, fill: '#555' }, name));
  }
  for (const e of graph.edges()) {
    const pts = (graph.edge(e) as { points?: { x: number; y: number }[] }).points ?? [];
    if (pts.length < 2) continue;
    root.appendChild(svg('path', { d: pts.map((p, i) => `${i ? 'L' : 'M'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(''),
      fill: 'none', stroke: '#777', 'marker-end': 'url(#gv-arrow)' }));
  }
}

export async function renderGraphViewer(ctx: PageContext): Promise<void> {
  const q = new URLSearchParams(location.search);
  const modules = (await fetchText(apiUrl('module_list', { run: ctx.sel.run }), ctx.signal)).split(',').filter(Boolean);
  if (modules.length === 0) { ctx.root.appendChild(message('empty', 'This run has no XLA modules.')); return; }
  const picker = el('select', { id: 'gv-module', 'aria-label': 'Module' }, ...modules.map((m) => el('option', { value: m }, m)));
  const wantedModule = q.get('module_name') ?? '';
  if (wantedModule && modules.includes(wantedModule)) picker.value = wantedModule;
  // The program drawn (or asked for by a link): re-centring stays in it even
  // where several programs share the module name; choosing a module clears it.
  let program = q.get('program_id') ?? '';
  const showModule = (name: string) => {
    if (!modules.includes(name)) { modules.push(name); picker.appendChild(el('option', { value: name }, name)); }
    picker.value = name;
  };
  const node = el('input', { type: 'text', id: 'gv-node', placeholder: 'HLO instruction or computation', 'aria-label': 'Node name', value: q.get('node_name') ?? '' });
  const width = el('input', { type: 'number', id: 'gv-width', min: '0', max: '20', value: q.get('graph_width') ?? '3', 'aria-label': 'Graph width' });
  const go = el('button', { id: 'gv-go' }, 'Draw');
  const status = el('div', { class: 'gv-status', id: 'gv-status', role: 'status' });
  const canvas = el('div', { class: 'gv-canvas', id: 'gv-canvas' });
  const detail = el('div', { class: 'gv-detail', id: 'gv-detail' }, 'Click a node to centre on it; “+” on a fusion shows its fused computation.');
  ctx.root.append(el('div', { class: 'toolbar' }, el('label', {}, 'Module ', picker), el('label', {}, 'Node ', node),
    el('label', {}, 'Hops ', width), go), status, section('HLO graph', detail, canvas));
  const expanded = new Set<string>();
  let data: HloGraph | null = null;

  const drawGraph = () => {
    clear(canvas);
    if (!data) return;
    const { graph, ms } = layoutGraph(data, expanded);
    const programNote = data.programId && !data.moduleName.endsWith(`(${data.programId})`) ? `, program ${data.programId}` : '';
    status.textContent = `${data.nodes.filter((n) => !n.parent).length} nodes in ${data.computation} (${data.moduleName}${programNote}) around ${data.center}; layout ${ms.toFixed(0)} ms`;
    status.dataset.layoutMs = ms.toFixed(1);
    status.dataset.center = data.center;
    status.dataset.module = data.moduleName;
    status.dataset.program = data.programId;
    const size = graph.graph() as { width?: number; height?: number };
    const root = svg('svg', { id: 'gv-svg', width: Math.ceil(size.width ?? 100), height: Math.ceil(size.height ?? 100), role: 'img', 'aria-label': 'HLO graph' });
    const defs = svg('defs', {}, svg('marker', { id: 'gv-arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 6, markerHeight: 6, orient: 'auto' },
      svg('path', { d: 'M0,0L10,5L0,10z', fill: '#777' })));
    root.appendChild(defs);
    const byName = new Map(data.nodes.map((n) => [n.name, n]));
    drawClustersAndEdges(root, graph);
    for (const name of graph.nodes()) {
      if (graph.children(name)?.length) continue;
      const n = byName.get(name);
      if (!n) continue;
      const b = graph.node(name) as unknown as Laid;
      const g = svg('g', { class: n.center ? 'gv-node gv-center' : 'gv-node', 'data-name': n.name, 'data-category': n.category, transform: `translate(${b.x - b.width / 2},${b.y - b.height / 2})` });
      g.appendChild(svg('rect', { width: b.width, height: b.height, rx: 5, fill: FILL[n.category] ?? '#fff',
        stroke: n.center ? '#d32f2f' : '#616161', 'stroke-width': n.center ? 3 : 1 }));
      const ink = DARK.has(n.category) ? '#fff' : '#212121';
      g.appendChild(svg('text', { x: 6, y: 16, 'font-size': 11, fill: ink, 'font-weight': 'bold' }, n.name));
      const more = n.hiddenOperands + n.hiddenUsers > 0 ? ` (+${n.hiddenOperands + n.hiddenUsers})` : '';
      g.appendChild(svg('text', { x: 6, y: 31, 'font-size': 10, fill: ink }, `${n.opcode}${n.fusionKind ? ' ' + n.fusionKind : ''}${more}`));
      g.appendChild(svg('title', {}, `${n.name} = ${n.shape} ${n.opcode}\n${n.opName || ''}${n.source ? '\n' + n.source : ''}`));
      if (n.opcode === 'fusion' && data.nodes.some((m) => m.parent === n.name)) {
        const toggle = svg('text', { x: b.width - 14, y: 16, 'font-size': 14, class: 'gv-toggle', 'data-fusion': n.name, fill: ink }, expanded.has(n.name) ? '−' : '+');
        toggle.addEventListener('click', (ev) => { ev.stopPropagation(); toggleFusion(n.name); });
        g.appendChild(toggle);
      }
      g.addEventListener('mouseenter', () => { detail.textContent = `${n.name} = ${n.shape} ${n.opcode} · ${n.opName || 'no framework op'} · ${n.source || 'source unknown'}`; });
      g.addEventListener('click', () => { if (!n.parent) { node.value = n.name; void load(); } });
      root.appendChild(g);
    }
    canvas.appendChild(root);
    // Bring the centre into the middle of the scrolled canvas.
    const centre = data.nodes.find((n) => n.center && !n.parent);
    if (centre && graph.hasNode(centre.name)) {
      const b = graph.node(centre.name) as unknown as Laid;
      canvas.scrollLeft = Math.max(0, b.x - canvas.clientWidth / 2);
      canvas.scrollTop = Math.max(0, b.y - canvas.clientHeight / 2);
    }
  };
  // A fusion's expansion is its own toggle; the cluster re-lays out the graph.
  const toggleFusion = (name: string) => {
    if (expanded.has(name)) expanded.delete(name); else expanded.add(name);
    drawGraph();
  };
  const fail = (text: string) => {
    data = null;
    clear(canvas);
    status.textContent = '';
    canvas.appendChild(el('div', { class: 'msg msg-error', role: 'alert', id: 'gv-error' }, text));
  };
  const load = async () => {
    const name = node.value.trim();
    if (!name) { clear(canvas); canvas.appendChild(message('info', 'Enter an HLO instruction or computation name (e.g. from HLO Op Stats or the trace).')); return; }
    clear(canvas);
    expanded.clear();
    try {
      const where = program ? { program_id: program } : { module_name: picker.value };
      data = await ctx.load<HloGraph>({ type: 'graph', format: 'json', ...where, node_name: name, graph_width: width.value });
      program = data.programId;
      showModule(data.moduleName);
      drawGraph();
    } catch (e) {
      if ((e as Error).name === 'AbortError') return;
      const where = program ? `program ${program}` : `module ${picker.value}`;
      // A 404 is a node the module does not have (a stale or wrong link), said as such.
      fail(e instanceof ApiError && e.status === 404 ? `${name} is not a node of ${where}: ${e.body.trim()}` : String((e as Error).message ?? e));
    }
  };
  // A link that names the module but not the program (a trace event's
  // hlo_module): draw the one program it can mean, or list them all.
  const resolveLink = async (): Promise<boolean> => {
    const name = node.value.trim();
    if (program || !name) return true;
    const choices = await ctx.load<ProgramChoice[]>({ type: 'programs', module_name: wantedModule, node_name: name });
    const label = (c: ProgramChoice) => c.moduleName.endsWith(`(${c.programId})`) ? c.moduleName : `${c.moduleName} (program ${c.programId})`;
    if (choices.length === 1) { program = choices[0].programId; return true; }
    // No module is drawn: the picker says so rather than showing the first module.
    picker.insertBefore(el('option', { value: '', disabled: '' }, '(no module chosen)'), picker.firstChild);
    picker.value = '';
    if (choices.length === 0) {
      fail(wantedModule ? `${name} is not a node of module ${wantedModule}.` : `No module of this run has a node named ${name}.`);
      return false;
    }
    clear(canvas);
    canvas.appendChild(el('div', { class: 'gv-candidates', id: 'gv-candidates' },
      el('p', {}, `${choices.length} programs${wantedModule ? ` named ${wantedModule}` : ''} have a node ${name}, and the link does not say which one ran it. Pick one:`),
      el('ul', {}, ...choices.map((c) => el('li', {}, el('a', { href: graphViewerHref(ctx.sel, name, { program: c.programId, module: c.moduleName }),
        'data-program': c.programId }, label(c)))))));
    status.textContent = `${name}: ${choices.length} candidate programs`;
    return false;
  };
  go.addEventListener('click', () => void load());
  node.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') void load(); });
  picker.addEventListener('change', () => { program = ''; void load(); });
  try {
    // No link: open on the most expensive op of the program that takes the most device time.
    if (!node.value.trim() && !wantedModule && !program) {
      const busiest = await busiestProgram(ctx.sel, modules, ctx.signal);
      if (busiest) { program = busiest.programId; node.value = busiest.op; if (busiest.module) picker.value = busiest.module; }
    }
    if (await resolveLink()) await load();
  } catch (e) {
    if ((e as Error).name !== 'AbortError') fail(String((e as Error).message ?? e));
  }
}
