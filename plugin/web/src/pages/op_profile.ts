// op_profile: the op_profile Profile JSON as a tree table (by category, by
// program or by framework-op path, with or without IDLE), time, FLOP and HBM
// bandwidth utilisation bars, a top-N cut per node, and a details box with
// links to hlo_stats; op nodes link to their node in graph_viewer. The server
// answers one grouping per request (`group_by`), as xprof's does: each is
// fetched when first chosen and kept.
import { el, section, message, clear } from '../dom';
import { fmtNum, fmtUs } from '../format';
import { PageContext, describeError } from '../page';
import { UNKNOWN, xlaToolHref, opFromUrl, graphViewerHref, graphLink } from './xla_common';

interface Metrics {
  flops?: number; bandwidthUtils?: number[]; rawTime?: number; rawFlops?: number; rawBytesAccessedArray?: number[];
  occurrences?: number; avgTimePs?: number; bf16Flops?: number;
}
interface XlaInfo { op?: string; expression?: string; provenance?: string; category?: string; programId?: string }
export interface ProfileNode { name: string; metrics?: Metrics; children?: ProfileNode[]; category?: object; xla?: XlaInfo; numChildren?: number }
interface Profile {
  byCategory?: ProfileNode; byProgram?: ProfileNode; byProvenance?: ProfileNode;
  byCategoryExcludeIdle?: ProfileNode; byProgramExcludeIdle?: ProfileNode; byProvenanceExcludeIdle?: ProfileNode; deviceType?: string;
}
type Grouping = 'category' | 'program' | 'provenance';
// The trees of each grouping: with IDLE, without.
const TREES: Record<Grouping, [keyof Profile, keyof Profile]> = {
  category: ['byCategory', 'byCategoryExcludeIdle'],
  program: ['byProgram', 'byProgramExcludeIdle'],
  provenance: ['byProvenance', 'byProvenanceExcludeIdle'],
};

const TOP_N_CHOICES = [5, 10, 25, 50, 100];
const BANDWIDTH_NAMES = ['HBM', 'on-chip read', 'on-chip write'];

// FLOP utilisation of a node: the server's `flops` is the utilisation weighted
// by the node's share of the root's time, so it is divided back out here.
// The server leaves `flops` out where the FLOPs or the peak are unknown: that
// and a node with no time are unknown (—); an op that computes nothing is 0%.
export function flopUtilisation(node: ProfileNode, rootTimePs: number): number | null {
  const m = node.metrics ?? {};
  const time = m.rawTime ?? 0;
  if (!(time > 0) || !(rootTimePs > 0) || typeof m.flops !== 'number') return null;
  return m.flops / (time / rootTimePs);
}

// A FLOP count the server did not write is unknown, not 0.
export function flopsText(node: ProfileNode): string {
  const f = node.metrics?.rawFlops;
  return typeof f === 'number' ? fmtNum(f) : UNKNOWN;
}

export function bandwidthUtilisation(node: ProfileNode, index: number): number | null {
  const u = node.metrics?.bandwidthUtils;
  return Array.isArray(u) && typeof u[index] === 'number' ? u[index] : null;
}

// Utilisations print with one decimal from 1% up, below that with two
// significant digits, so a small but measured share never reads as 0.0%.
export function fmtUtil(fraction: number): string {
  const pct = fraction * 100;
  if (pct === 0 || Math.abs(pct) >= 1) return `${pct.toFixed(pct === 0 ? 0 : 1)}%`;
  const digits = Math.min(12, 1 - Math.floor(Math.log10(Math.abs(pct))));
  return `${pct.toFixed(digits)}%`;
}

function utilBar(value: number | null, what: string): HTMLElement {
  const cell = el('div', { class: 'util' });
  if (value === null) { cell.append(el('span', { class: 'util-text', title: `${what} is unknown for this node` }, UNKNOWN)); return cell; }
  const bar = el('div', { class: 'util-bar' });
  const fill = el('div', { class: 'util-fill' });
  fill.style.width = `${Math.max(0, Math.min(1, value)) * 100}%`;
  if (value > 0.5) fill.classList.add('high');
  bar.appendChild(fill);
  cell.append(bar, el('span', { class: 'util-text' }, fmtUtil(value)));
  return cell;
}

function timeUs(node: ProfileNode): number { return (node.metrics?.rawTime ?? 0) / 1e6; }

// Path (child indices from the root) to the node naming `op` (in `program` when given).
export function findOpPath(root: ProfileNode, op: string, program: string): number[] | null {
  const matches = (n: ProfileNode) => !!n.xla && (!program || n.xla.programId === program) &&
    (n.name === op || n.name === `${op} and its duplicate(s)`);
  const walk = (n: ProfileNode, path: number[]): number[] | null => {
    if (path.length && matches(n)) return path;
    const kids = n.children ?? [];
    for (let i = 0; i < kids.length; i++) {
      const found = walk(kids[i], [...path, i]);
      if (found) return found;
    }
    return null;
  };
  return walk(root, []);
}

// Executions of a node. The root, a program and a framework-op path part do
// not run (the server gives them 0): for them the count is left blank.
export function occurrencesText(n: ProfileNode): string {
  const count = n.metrics?.occurrences ?? 0;
  return count > 0 || n.xla || n.category ? fmtNum(count) : UNKNOWN;
}

// The HLO instruction a node stands for ("X and its duplicate(s)" stands for X).
function opOf(n: ProfileNode): string { return n.name.replace(/ and its duplicate\(s\)$/, ''); }

// A node's details: its time and HLO figures, its expression, links to its
// HLO op (and graph, when `graphable`).
function showOpDetails(details: HTMLElement, n: ProfileNode, ctx: PageContext, graphable: boolean): void {
  clear(details);
  const row = (k: string, v: string) => el('tr', {}, el('th', {}, k), el('td', {}, v));
  const m = n.metrics ?? {};
  const table = el('table', { class: 'kv' }, row('Name', n.name), row('Time', fmtUs(timeUs(n))), row('#Occurrences', occurrencesText(n)));
  if (n.xla) {
    table.append(row('HLO op', n.xla.op || UNKNOWN), row('Category', n.xla.category || UNKNOWN), row('Program id', n.xla.programId || UNKNOWN),
      row('Framework op', n.xla.provenance || UNKNOWN), row('FLOPs', flopsText(n)));
  }
  const bytes = m.rawBytesAccessedArray ?? [];
  BANDWIDTH_NAMES.forEach((name, i) => table.append(row(`Bytes (${name})`, typeof bytes[i] === 'number' ? fmtNum(bytes[i]) : UNKNOWN)));
  details.appendChild(table);
  if (n.xla?.expression) details.appendChild(el('pre', { class: 'raw hlo-text' }, n.xla.expression));
  if (n.xla) {
    const op = opOf(n);
    details.appendChild(el('a', { class: 'xla-link', id: 'op-profile-to-hlo-stats', href: xlaToolHref(ctx.sel, 'hlo_stats', op, n.xla.programId) }, 'Open in HLO Op Stats'));
    if (graphable) {
      details.append(' ', el('a', { class: 'xla-link', id: 'op-profile-to-graph', href: graphViewerHref(ctx.sel, op, { program: n.xla.programId }) }, 'Open in Graph Viewer'));
    }
  }
}

export async function renderOpProfile(ctx: PageContext): Promise<void> {
  const profiles = new Map<Grouping, Profile | null>();
  const fetchGrouping = async (g: Grouping): Promise<Profile | null> => {
    if (!profiles.has(g)) profiles.set(g, await ctx.load<Profile>({ group_by: g }));
    return profiles.get(g) ?? null;
  };
  const data = await fetchGrouping('category');
  if (!data || (!data.byCategory && !data.byProgram)) { ctx.root.appendChild(message('empty', 'No op profile in this response.')); return; }

  // Runs whose device time names no HLO op (no HLO modules recorded, or kernels without hlo_op) have only IDLE.
  const onlyIdle = (data.byCategory?.children ?? []).every((c) => c.name === 'IDLE');
  if (onlyIdle) ctx.root.appendChild(message('empty', 'No device time in this profile is attributed to an HLO op: all of it is IDLE.'));
  const grouping = el('select', { id: 'op-profile-grouping', 'aria-label': 'Group by' },
    el('option', { value: 'category' }, 'by category'), el('option', { value: 'program' }, 'by program'),
    el('option', { value: 'provenance' }, 'by framework op'));
  const includeIdle = el('input', { type: 'checkbox', id: 'op-profile-idle' });
  includeIdle.checked = true;
  const topN = el('select', { id: 'op-profile-top', 'aria-label': 'Top N' }, ...TOP_N_CHOICES.map((n) => el('option', { value: String(n) }, String(n))));
  topN.value = '10';
  ctx.root.appendChild(el('div', { class: 'toolbar' }, el('label', {}, 'Group ', grouping), el('label', {}, includeIdle, ' Include IDLE'),
    el('label', {}, 'Show top ', topN, ' children per node'), data.deviceType ? el('span', { class: 'hint' }, `Device: ${data.deviceType}`) : null));

  const head = el('tr', {}, ...['Name', 'Time', 'Time (% of total)', 'FLOP utilisation', 'HBM bandwidth utilisation', '#Occurrences', 'Avg. time']
    .map((h, i) => el('th', { class: i === 0 || i === 3 || i === 4 ? '' : 'num' }, h)));
  const body = el('tbody');
  const table = el('table', { class: 'grid op-tree', id: 'op-profile-tree' }, el('thead', {}, head), body);
  const details = el('div', { id: 'op-profile-details' }, el('p', { class: 'hint' }, 'Click a name to see its HLO details.'));
  ctx.root.append(section('Ops', el('div', { class: 'grid-scroll' }, table)),
    section('Details', details));

  const linked = opFromUrl();
  // Op nodes (and the fused instructions under a fusion) are HLO nodes of their program.
  const hasGraphs = ctx.tools.includes('graph_viewer');
  const graphable = (n: ProfileNode) => hasGraphs && !!n.xla?.programId && n.xla.category !== 'IDLE' && n.name !== 'IDLE';
  const expanded = new Set<string>();
  let highlight: string | null = null;
  let reveal: number[] = [];

  const currentRoot = (): ProfileNode | undefined => {
    const g = grouping.value as Grouping;
    const profile = profiles.get(g);
    if (!profile) return undefined;
    const [withIdle, withoutIdle] = TREES[g];
    const tree = (k: keyof Profile) => profile[k] as ProfileNode | undefined;
    return includeIdle.checked ? tree(withIdle) : tree(withoutIdle) ?? tree(withIdle);
  };

  const showDetails = (n: ProfileNode) => showOpDetails(details, n, ctx, graphable(n));

  const draw = () => {
    clear(body);
    // Which grouping the rows show, for tests that wait on a grouping's fetch.
    table.setAttribute('data-grouping', grouping.value);
    const root = currentRoot();
    if (!root) { body.appendChild(el('tr', {}, el('td', {}, 'This view is not in the response.'))); return; }
    const rootTime = root.metrics?.rawTime ?? 0;
    const limit = Number(topN.value);
    const addRow = (n: ProfileNode, path: number[]) => {
      const key = path.join('/');
      const kids = n.children ?? [];
      const open = expanded.has(key);
      const toggle = el('button', { class: 'link-button tree-toggle', 'aria-label': open ? 'Collapse' : 'Expand' }, kids.length ? (open ? '▾' : '▸') : '');
      toggle.addEventListener('click', () => { if (open) expanded.delete(key); else expanded.add(key); draw(); });
      const nameButton = el('button', { class: 'link-button tree-name', title: n.name }, n.name);
      nameButton.addEventListener('click', () => { highlight = key; showDetails(n); draw(); });
      const nameCell = el('td', { class: 'tree-cell' }, toggle, nameButton,
        graphable(n) ? graphLink(ctx.sel, opOf(n), n.xla!.programId!) : null);
      nameCell.style.paddingLeft = `${8 + 16 * path.length}px`;
      const m = n.metrics ?? {};
      const share = rootTime > 0 ? (m.rawTime ?? 0) / rootTime : null;
      const avg = (m.occurrences ?? 0) > 0 ? (m.avgTimePs ?? 0) / 1e6 : null;
      const tr = el('tr', { 'data-path': key, 'data-name': n.name, class: key === highlight ? 'selected' : '' },
        nameCell, el('td', { class: 'num', 'data-col': 'time' }, fmtUs(timeUs(n))),
        el('td', { class: 'num', 'data-col': 'share' }, share === null ? UNKNOWN : fmtUtil(share)),
        el('td', { 'data-col': 'flops' }, utilBar(flopUtilisation(n, rootTime), 'FLOP utilisation')),
        el('td', { 'data-col': 'hbm' }, utilBar(bandwidthUtilisation(n, 0), 'HBM bandwidth utilisation')),
        el('td', { class: 'num', 'data-col': 'occurrences' }, occurrencesText(n)),
        el('td', { class: 'num', 'data-col': 'avg' }, avg === null ? UNKNOWN : fmtUs(avg)));
      body.appendChild(tr);
      if (!open) return;
      // The top N children, plus the one on the way to a linked op.
      kids.forEach((c, i) => {
        const onReveal = reveal.length > path.length && reveal.slice(0, path.length).join('/') === key && reveal[path.length] === i;
        if (i < limit || onReveal) addRow(c, [...path, i]);
      });
      const hidden = Math.max(0, kids.length - limit);
      const cut = Math.max(0, (n.numChildren ?? kids.length) - kids.length);
      if (hidden > 0 || cut > 0) {
        const more = el('td', { class: 'hint' }, hidden > 0 ? `${hidden} more not shown (raise "Show top")` : '',
          cut > 0 ? `${hidden > 0 ? '; ' : ''}${cut} more left out by the server` : '');
        more.style.paddingLeft = `${8 + 16 * (path.length + 1)}px`;
        more.colSpan = 7;
        body.appendChild(el('tr', { class: 'tree-more' }, more));
      }
    };
    addRow(root, []);
  };

  const openLinked = () => {
    const root = currentRoot();
    if (!linked.op || !root) return false;
    const path = findOpPath(root, linked.op, linked.program);
    if (!path) return false;
    for (let i = 0; i <= path.length - 1; i++) expanded.add(path.slice(0, i).join('/'));
    reveal = path;
    highlight = path.join('/');
    let node = root;
    for (const i of path) node = node.children![i];
    showDetails(node);
    return true;
  };

  const reset = () => { expanded.clear(); expanded.add(''); highlight = null; reveal = []; openLinked(); draw(); };
  grouping.addEventListener('change', () => {
    fetchGrouping(grouping.value as Grouping).then(reset, (e: unknown) => {
      profiles.delete(grouping.value as Grouping);
      clear(body);
      body.appendChild(el('tr', {}, el('td', { class: 'msg-error' }, describeError(e))));
    });
  });
  includeIdle.addEventListener('change', reset);
  topN.addEventListener('change', draw);
  expanded.add('');
  const found = openLinked();
  draw();
  if (linked.op) {
    const note = found ? `Showing the linked op ${linked.op}.` : `The linked op ${linked.op} is not in this profile's tree.`;
    ctx.root.insertBefore(el('p', { class: 'hint', id: 'op-profile-linked' }, note), ctx.root.firstChild);
    body.querySelector('tr.selected')?.scrollIntoView({ block: 'center' });
  }
}
