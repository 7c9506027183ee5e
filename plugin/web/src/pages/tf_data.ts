import { el, svg, section, message, clear, safeHtml } from '../dom';
import { tableAt, DataTable, colIndex, cellValue, cellText } from '../datatable';
import { PageContext } from '../page';
import { card, cards } from './common';
import { gridFromDataTable, DataGrid } from '../table';

interface Node { id: string; parent: string; type: number; lines: string[]; children: Node[]; x: number; y: number }

// Node labels arrive as small HTML snippets; keep their text, one line per <br>.
function htmlLines(html: string): string[] {
  return html.split(/<br\s*\/?>/i).map((part) => {
    const d = document.createElement('div');
    d.appendChild(safeHtml(part));
    return (d.textContent ?? '').trim();
  }).filter(Boolean);
}

const NODE_W = 230, LINE_H = 15, GAP_X = 24, GAP_Y = 46;

// Layered tree layout: leaves take consecutive slots, parents sit centred over their children.
function layout(roots: Node[]): { width: number; height: number; nodeH: number } {
  const nodeH = 10 + LINE_H * Math.max(1, ...allNodes(roots).map((n) => n.lines.length));
  let slot = 0, maxDepth = 0;
  const place = (n: Node, depth: number) => {
    maxDepth = Math.max(maxDepth, depth);
    n.y = depth * (nodeH + GAP_Y) + 10;
    if (n.children.length === 0) { n.x = slot++ * (NODE_W + GAP_X) + 10; return; }
    n.children.forEach((c) => place(c, depth + 1));
    n.x = (n.children[0].x + n.children[n.children.length - 1].x) / 2;
  };
  roots.forEach((r) => place(r, 0));
  return { width: Math.max(1, slot) * (NODE_W + GAP_X) + 20, height: (maxDepth + 1) * (nodeH + GAP_Y) + 20, nodeH };
}
function allNodes(roots: Node[]): Node[] { const out: Node[] = []; const walk = (n: Node) => { out.push(n); n.children.forEach(walk); }; roots.forEach(walk); return out; }

function drawGraph(nodes: Node[]): SVGElement {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  for (const n of nodes) byId.get(n.parent)?.children.push(n);
  const roots = nodes.filter((n) => !byId.has(n.parent));
  const { width, height, nodeH } = layout(roots);
  const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, width, height, class: 'dag', 'data-chart': 'pipeline-graph' });
  for (const n of nodes) {
    const p = byId.get(n.parent);
    if (!p) continue;
    const critical = n.type > 0 && p.type > 0;
    root.appendChild(svg('line', { x1: p.x + NODE_W / 2, y1: p.y + nodeH, x2: n.x + NODE_W / 2, y2: n.y, class: critical ? 'edge critical' : 'edge' }));
  }
  for (const n of nodes) {
    const cls = n.type === 2 ? 'node bottleneck' : n.type === 1 ? 'node blocking' : 'node';
    const g = svg('g', { class: cls, 'data-node': n.id, transform: `translate(${n.x},${n.y})` });
    g.appendChild(svg('rect', { width: NODE_W, height: nodeH, rx: 4 }));
    n.lines.forEach((line, i) => g.appendChild(svg('text', { x: 6, y: 16 + i * LINE_H, class: i === 0 ? 'title' : '' }, line.length > 34 ? line.slice(0, 33) + '…' : line)));
    g.appendChild(svg('title', {}, n.lines.join('\n')));
    root.appendChild(g);
  }
  return root;
}

export async function renderTfData(ctx: PageContext): Promise<void> {
  const data = await ctx.load<unknown>();
  const graph = tableAt(data, 0), summary = tableAt(data, 1), bottleneck = tableAt(data, 2);
  const p = bottleneck?.p ?? {};
  const root = ctx.root;
  if (!summary || summary.rows.length === 0) { root.appendChild(message('empty', 'No tf.data input pipelines were found in this profile.')); return; }

  root.appendChild(section('Summary', cards(card('Input bound', p.is_input_bound === 'true' ? 'Yes' : p.is_input_bound === 'false' ? 'No' : '—'),
    card('Input pipelines', String(summary.rows.length), '', { json: summary.rows.length, jsonUnit: 'rows' })), p.summary_message ? el('p', { class: 'conclusion' }, safeHtml(p.summary_message)) : null,
    el('p', { class: 'hint', id: 'verdict-basis' }, 'This verdict reads tf.data call latencies (a call slower than 50 µs is slow); the overview '
      + 'and the input pipeline analyzer judge by the share of step time spent waiting for input, so the pages can differ.')));

  if (bottleneck && bottleneck.rows.length) {
    const bi = colIndex(bottleneck, 'bottleneck'), si = colIndex(bottleneck, 'suggestion');
    const html = (t: DataTable, c: number) => (r: number) => { const s = el('span'); s.appendChild(safeHtml(cellText(t, r, c))); return s; };
    const grid = new DataGrid(bottleneck.cols.map((c, i) => ({
      id: c.id, label: c.label, numeric: c.type === 'number', value: (r: number) => cellValue(bottleneck, r, i),
      render: i === bi || i === si ? html(bottleneck, i) : undefined,
    })), bottleneck.rows.map((_, i) => i), { name: 'bottlenecks', initialSort: { id: 'max_latency', desc: true } });
    root.appendChild(section('Bottleneck analysis', grid.root));
  }
  root.appendChild(section('All input pipelines', gridFromDataTable(summary, { name: 'pipelines', initialSort: { id: 'max', desc: true } }).root));

  if (!graph || graph.rows.length === 0) { root.appendChild(section('Input pipeline graph', message('empty', 'No iterator graph recorded.'))); return; }
  const hi = colIndex(graph, 'host'), pi = colIndex(graph, 'input_pipeline'), ri = colIndex(graph, 'rank'), ni = colIndex(graph, 'name'),
    pa = colIndex(graph, 'parent'), ti = colIndex(graph, 'type');
  const keys = Array.from(new Set(graph.rows.map((_, r) => `${cellText(graph, r, hi)}\u0000${cellText(graph, r, pi)}`)));
  const pipelinePick = el('select', { id: 'pipeline-select', 'aria-label': 'Input pipeline' }, ...keys.map((k) => el('option', { value: k }, k.replace('\u0000', ' · '))));
  const rankPick = el('select', { id: 'rank-select', 'aria-label': 'Call' });
  const canvas = el('div', { class: 'dag-scroll' });
  const ranksFor = (key: string) => Array.from(new Set(graph.rows.map((_, r) => r).filter((r) => `${cellText(graph, r, hi)}\u0000${cellText(graph, r, pi)}` === key)
    .map((r) => Number(cellValue(graph, r, ri))))).sort((a, b) => a - b);
  const draw = () => {
    const key = pipelinePick.value, rank = Number(rankPick.value);
    const nodes: Node[] = graph.rows.map((_, r) => r).filter((r) => `${cellText(graph, r, hi)}\u0000${cellText(graph, r, pi)}` === key && Number(cellValue(graph, r, ri)) === rank)
      .map((r) => {
        const cell = graph.rows[r].c[ni];
        return { id: String(cell?.v ?? ''), parent: cellText(graph, r, pa) === '' ? '' : String(cellValue(graph, r, pa)), type: Number(cellValue(graph, r, ti)) || 0,
          lines: htmlLines(typeof cell?.f === 'string' ? cell.f : String(cell?.v ?? '')), children: [], x: 0, y: 0 };
      });
    clear(canvas);
    canvas.appendChild(nodes.length ? drawGraph(nodes) as unknown as HTMLElement : message('empty', 'No iterators for this call.'));
  };
  const fillRanks = () => {
    clear(rankPick);
    for (const r of ranksFor(pipelinePick.value)) rankPick.appendChild(el('option', { value: String(r) }, r === 0 ? 'slowest call (rank 0)' : `call rank ${r}`));
    draw();
  };
  pipelinePick.addEventListener('change', fillRanks);
  rankPick.addEventListener('change', draw);
  root.appendChild(section('Input pipeline graph', el('div', { class: 'toolbar' }, el('label', {}, 'Pipeline ', pipelinePick), el('label', {}, 'Call ', rankPick)),
    el('p', { class: 'hint' }, 'Critical path in bold; the bottleneck iterator in red.'), canvas));
  fillRanks();
}
