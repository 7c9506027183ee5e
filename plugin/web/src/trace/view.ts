// Canvas timeline: one lane per process/thread, nested slices per depth row,
// counters as step charts. Draws only what is visible, merging sub-pixel slices.
import { Layer, Lane, NameTable, TraceMeta, RawEvent, PathArrow, firstVisible } from './model';
import { PALETTE } from '../charts';

export const HEADING_W = 230;
const RULER_H = 24, ROW_H = 18, PROC_H = 20, COUNTER_H = 40;

interface LaneBox { lane: string; pid: string; y: number; h: number; rows: number; counter: boolean; title: string }
interface ProcBox { pid: string; y: number; title: string }
export interface Selected { lane: string; raw: RawEvent; start: number; dur: number; name: string }
// A box drawn with Shift+drag: a time range over whole lanes.
export interface BoxSelection { t0: number; t1: number; lanes: string[] }
export type WheelMode = 'scroll' | 'zoom';

// Cuts a label to about `px` pixels of 11px sans-serif (≈6.2 px a character)
// instead of letting the canvas squeeze it.
function fitText(text: string, px: number): string {
  const chars = Math.floor(px / 6.2);
  if (text.length <= chars) return text;
  return chars <= 1 ? '' : text.slice(0, chars - 1) + '…';
}

function colorFor(name: string): string {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) | 0;
  return PALETTE[Math.abs(h) % PALETTE.length];
}

export class TraceView {
  readonly canvas: HTMLCanvasElement;
  private ctx: CanvasRenderingContext2D;
  viewStart = 0; viewEnd = 1;
  private scrollY = 0;
  private base: Layer | null = null;
  private detail: Layer | null = null;
  private lanes: LaneBox[] = [];
  private procs: ProcBox[] = [];
  private contentH = 0;
  private collapsed = new Set<string>();
  private highlight: Set<number> | null = null;
  selected: Selected | null = null;
  private frame = 0;
  private flowBoxes: { x0: number; x1: number; y: number; out: boolean }[] = [];
  // Flows drawn whatever is selected (a step's critical path).
  pathArrows: PathArrow[] = [];
  private mouseX = -1;
  onViewChange: () => void = () => {};
  onSelect: (s: Selected | null) => void = () => {};
  onBox: (b: BoxSelection | null) => void = () => {};
  onHelp: () => void = () => {};
  box: BoxSelection | null = null;
  private boxDrag: { x0: number; y0: number; x1: number; y1: number } | null = null;
  // Without a modifier the wheel scrolls the lanes ('scroll', Ctrl/Alt zooms) or zooms ('zoom', Shift scrolls).
  wheelMode: WheelMode = 'scroll';

  constructor(private readonly host: HTMLElement, readonly names: NameTable, readonly meta: TraceMeta) {
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'trace-canvas';
    this.canvas.tabIndex = 0;
    host.appendChild(this.canvas);
    this.ctx = this.canvas.getContext('2d')!;
    new ResizeObserver(() => this.requestDraw()).observe(host);
    this.bindInput();
  }

  get plotWidth(): number { return Math.max(1, this.host.clientWidth - HEADING_W); }

  setLayers(base: Layer | null, detail: Layer | null): void {
    this.base = base; this.detail = detail;
    this.relayout();
    // New events can add rows above the selection's lane: keep a selection just jumped to on screen.
    if (this.revealSelection && this.selected) this.scrollToLane(this.selected.lane);
    this.requestDraw();
  }

  // Set by select(), cleared when the user scrolls the lanes.
  private revealSelection = false;

  private scrollToLane(key: string): void {
    const box = this.lanes.find((l) => l.lane === key);
    const viewH = this.host.clientHeight - RULER_H;
    if (box && (box.y < this.scrollY || box.y + ROW_H > this.scrollY + viewH)) this.scrollY = Math.max(0, box.y - viewH / 3);
  }

  setHighlight(ids: Set<number> | null): void { this.highlight = ids; this.requestDraw(); }

  // The trace's extent: the view may not zoom out or pan far beyond it.
  bounds: [number, number] | null = null;

  setView(start: number, end: number, notify = true): void {
    const min = 1e-3; // 1 ns
    if (end - start < min) { const c = (start + end) / 2; start = c - min / 2; end = c + min / 2; }
    if (this.bounds) {
      const [b0, b1] = this.bounds, margin = (b1 - b0) * 0.05;
      const maxW = (b1 - b0) + 2 * margin;
      if (end - start > maxW) { start = b0 - margin; end = b1 + margin; }
      if (start < b0 - margin) { end += b0 - margin - start; start = b0 - margin; }
      if (end > b1 + margin) { start -= end - (b1 + margin); end = b1 + margin; }
    }
    this.viewStart = start; this.viewEnd = end;
    this.requestDraw();
    if (notify) this.onViewChange();
  }

  zoomBy(factor: number, anchorX?: number): void {
    const w = this.viewEnd - this.viewStart;
    const fx = anchorX === undefined || anchorX < HEADING_W ? 0.5 : (anchorX - HEADING_W) / this.plotWidth;
    const t = this.viewStart + w * fx, nw = w * factor;
    this.setView(t - nw * fx, t - nw * fx + nw);
  }

  panBy(fraction: number): void {
    const d = (this.viewEnd - this.viewStart) * fraction;
    this.setView(this.viewStart + d, this.viewEnd + d);
  }

  private relayout(): void {
    const keys = new Map<string, Lane>();
    for (const layer of [this.base, this.detail]) if (layer) for (const [k, l] of layer.lanes) {
      const prev = keys.get(k);
      if (!prev || l.rows.length > prev.rows.length) keys.set(k, l);
    }
    const m = this.meta;
    const pids = Array.from(new Set(Array.from(keys.values(), (l) => l.pid)));
    const num = (s: string) => (Number.isFinite(Number(s)) ? Number(s) : Infinity);
    pids.sort((a, b) => (m.processSort.get(a) ?? num(a)) - (m.processSort.get(b) ?? num(b)) || a.localeCompare(b));
    this.lanes = []; this.procs = [];
    let y = 0;
    for (const pid of pids) {
      this.procs.push({ pid, y, title: m.processNames.get(pid) ?? `Process ${pid}` });
      y += PROC_H;
      if (this.collapsed.has(pid)) continue;
      const mine = Array.from(keys.values()).filter((l) => l.pid === pid);
      mine.sort((a, b) => (a.counter ? 1 : 0) - (b.counter ? 1 : 0) ||
        (m.threadSort.get(a.key) ?? num(a.tid)) - (m.threadSort.get(b.key) ?? num(b.tid)) || a.tid.localeCompare(b.tid));
      // Threads of one process that share a name (four "tf_Compute") are told apart by their ids.
      const nameCount = new Map<string, number>();
      for (const l of mine) { const n = m.threadNames.get(l.key); if (n !== undefined) nameCount.set(n, (nameCount.get(n) ?? 0) + 1); }
      for (const l of mine) {
        const rows = Math.max(1, l.rows.length);
        const h = l.counter ? COUNTER_H : rows * ROW_H + 4;
        const named = m.threadNames.get(l.key);
        const title = l.counter ? l.tid.replace(/^counter:/, '') : named === undefined ? `Thread ${l.tid}`
          : (nameCount.get(named) ?? 0) > 1 ? `${named} (${l.tid})` : named;
        this.lanes.push({ lane: l.key, pid, y, h, rows, counter: !!l.counter, title });
        y += h;
      }
    }
    this.contentH = y;
    // Lane titles per process, for the browser tests (the lanes are drawn on a canvas).
    this.canvas.dataset.laneTitles = JSON.stringify(this.lanes.filter((l) => !l.counter).map((l) => [l.pid, l.title]));
  }

  requestDraw(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => { this.frame = 0; this.draw(); });
  }

  x(t: number): number { return HEADING_W + ((t - this.viewStart) / (this.viewEnd - this.viewStart)) * this.plotWidth; }
  t(x: number): number { return this.viewStart + ((x - HEADING_W) / this.plotWidth) * (this.viewEnd - this.viewStart); }

  private draw(): void {
    const t0 = performance.now();
    this.drawFrame();
    this.canvas.dataset.drawMs = (performance.now() - t0).toFixed(2);  // shown by the browser tests
    // The first frame with events, in ms since the page's navigation began: the browser suite's first-paint figure.
    if (!this.canvas.dataset.firstPaintMs && this.lanes.length > 0) {
      this.canvas.dataset.firstPaintMs = performance.now().toFixed(0);
      performance.mark('tbprof-trace-first-paint');
    }
  }

  private drawFrame(): void {
    const dpr = window.devicePixelRatio || 1;
    const w = this.host.clientWidth, h = this.host.clientHeight;
    if (this.canvas.width !== Math.round(w * dpr) || this.canvas.height !== Math.round(h * dpr)) {
      this.canvas.width = Math.round(w * dpr); this.canvas.height = Math.round(h * dpr);
      this.canvas.style.width = `${w}px`; this.canvas.style.height = `${h}px`;
    }
    const c = this.ctx;
    c.setTransform(dpr, 0, 0, dpr, 0, 0);
    c.fillStyle = '#fff'; c.fillRect(0, 0, w, h);
    for (const k of ['selectedX', 'selectedY', 'selectedW', 'selectedKey']) delete this.canvas.dataset[k];
    this.scrollY = Math.max(0, Math.min(this.scrollY, Math.max(0, this.contentH - (h - RULER_H))));
    c.font = '11px sans-serif'; c.textBaseline = 'middle';
    this.flowBoxes = [];
    c.save();
    c.beginPath(); c.rect(0, RULER_H, w, h - RULER_H); c.clip();
    for (const p of this.procs) {
      const y = RULER_H + p.y - this.scrollY;
      if (y > h || y + PROC_H < RULER_H) continue;
      c.fillStyle = '#e8eaf0'; c.fillRect(0, y, w, PROC_H);
      c.fillStyle = '#222'; c.font = 'bold 11px sans-serif';
      c.fillText(fitText(`${this.collapsed.has(p.pid) ? '▸' : '▾'} ${p.title}`, w - 12), 6, y + PROC_H / 2);
      c.font = '11px sans-serif';
    }
    for (const lane of this.lanes) {
      const y = RULER_H + lane.y - this.scrollY;
      if (y > h || y + lane.h < RULER_H) continue;
      c.strokeStyle = '#eee'; c.beginPath(); c.moveTo(0, y + lane.h - 0.5); c.lineTo(w, y + lane.h - 0.5); c.stroke();
      c.fillStyle = '#333'; c.fillText(fitText(lane.title, HEADING_W - 20), 14, y + Math.min(lane.h, ROW_H) / 2 + 1);
      c.save();
      c.beginPath(); c.rect(HEADING_W, y, w - HEADING_W, lane.h); c.clip();
      this.drawLane(lane, y);
      c.restore();
    }
    this.drawFlows();
    this.drawPathArrows();
    c.restore();
    c.fillStyle = '#ccc'; c.fillRect(HEADING_W - 1, RULER_H, 1, h - RULER_H);
    this.drawRuler(w);
    this.drawBox(h);
  }

  // The box being dragged, or the chosen range shaded over its lanes with its length on the ruler.
  private drawBox(h: number): void {
    const c = this.ctx;
    if (this.boxDrag) {
      const d = this.boxDrag;
      c.fillStyle = 'rgba(9,105,218,0.12)'; c.strokeStyle = '#0969da';
      c.fillRect(Math.min(d.x0, d.x1), Math.min(d.y0, d.y1), Math.abs(d.x1 - d.x0), Math.abs(d.y1 - d.y0));
      c.strokeRect(Math.min(d.x0, d.x1) + 0.5, Math.min(d.y0, d.y1) + 0.5, Math.abs(d.x1 - d.x0), Math.abs(d.y1 - d.y0));
      return;
    }
    const b = this.box;
    delete this.canvas.dataset.rangeLabel;
    if (!b) return;
    const xa = Math.max(HEADING_W, this.x(b.t0)), xb = Math.min(HEADING_W + this.plotWidth, this.x(b.t1));
    if (xb <= xa) return;
    c.fillStyle = 'rgba(9,105,218,0.10)';
    for (const lane of this.lanes) {
      if (!b.lanes.includes(lane.lane)) continue;
      const y = RULER_H + lane.y - this.scrollY;
      if (y > h || y + lane.h < RULER_H) continue;
      c.fillRect(xa, Math.max(RULER_H, y), xb - xa, lane.h);
    }
    c.fillStyle = '#0969da';
    c.fillRect(xa, RULER_H - 3, xb - xa, 3);
    // The range's length is written just under the ruler, so that it never covers the ruler's times.
    const label = formatTime(b.t1 - b.t0, b.t1 - b.t0);
    c.font = 'bold 10px sans-serif';
    const lw = c.measureText(label).width, lh = 14, ly = RULER_H + 2;
    const lx = Math.max(HEADING_W + 2, Math.min(xa + 4, HEADING_W + this.plotWidth - lw - 4));
    c.fillStyle = '#fff'; c.fillRect(lx - 2, ly, lw + 4, lh);
    c.strokeStyle = '#0969da'; c.strokeRect(lx - 2.5, ly + 0.5, lw + 5, lh - 1);
    c.fillStyle = '#0969da'; c.fillText(label, lx, ly + lh / 2);
    c.font = '11px sans-serif';
    this.canvas.dataset.rangeLabel = [lx - 2, ly, lw + 4, lh].map((v) => v.toFixed(1)).join(',');
  }

  // Arrows from the flow's source (flow_out, e.g. a kernel launch) to each destination.
  private drawFlows(): void {
    const src = this.flowBoxes.find((b) => b.out), c = this.ctx;
    if (!src) return;
    c.strokeStyle = '#b31d28'; c.fillStyle = '#b31d28'; c.lineWidth = 1.5;
    for (const d of this.flowBoxes) {
      if (d === src) continue;
      const x0 = src.x1, y0 = src.y, x1 = Math.max(d.x0, HEADING_W), y1 = d.y;
      c.beginPath(); c.moveTo(x0, y0); c.bezierCurveTo((x0 + x1) / 2, y0, (x0 + x1) / 2, y1, x1, y1); c.stroke();
      c.beginPath(); c.moveTo(x1, y1); c.lineTo(x1 - 6, y1 - 4); c.lineTo(x1 - 6, y1 + 4); c.closePath(); c.fill();
    }
    c.lineWidth = 1;
  }

  // The y of the deepest slice of a lane that holds time `ts` (the lane's first row when none does); null when the
  // lane is not laid out (its process is collapsed).
  private yAt(laneKey: string, ts: number): number | null {
    const box = this.lanes.find((l) => l.lane === laneKey);
    if (!box) return null;
    let depth = 0;
    for (const layer of [this.detail, this.base]) {
      const lane = layer?.lanes.get(laneKey);
      if (!lane) continue;
      lane.rows.forEach((row, d) => {
        const i = firstVisible(row, ts);
        if (i < row.start.length && row.start[i] <= ts && row.start[i] + row.dur[i] >= ts) depth = Math.max(depth, d);
      });
    }
    return RULER_H + box.y - this.scrollY + 2 + depth * ROW_H + ROW_H / 2;
  }

  // The critical path's arrows, in a colour of their own; how many are on screen is kept for the browser tests.
  private drawPathArrows(): void {
    const c = this.ctx;
    let drawn = 0;
    c.strokeStyle = '#6f42c1'; c.fillStyle = '#6f42c1'; c.lineWidth = 2;
    for (const a of this.pathArrows) {
      const y0 = this.yAt(a.from.lane, a.from.ts), y1 = this.yAt(a.to.lane, a.to.ts);
      if (y0 === null || y1 === null) continue;
      const x0 = this.x(a.from.ts), x1 = this.x(a.to.ts);
      if (Math.max(x0, x1) < HEADING_W || Math.min(x0, x1) > HEADING_W + this.plotWidth) continue;
      drawn++;
      // At a zoom where the two ends meet, the path is one line through the slices: no heads piled on each other.
      const len = Math.hypot(x1 - x0, y1 - y0);
      if (len < 2) continue;
      c.beginPath(); c.moveTo(x0, y0); c.bezierCurveTo((x0 + x1) / 2, y0, (x0 + x1) / 2, y1, x1, y1); c.stroke();
      if (len < 12) continue;
      c.beginPath(); c.moveTo(x1, y1); c.lineTo(x1 - 6, y1 - 4); c.lineTo(x1 - 6, y1 + 4); c.closePath(); c.fill();
    }
    c.lineWidth = 1;
    this.canvas.dataset.pathArrowsDrawn = String(drawn);
  }

  // The detail layer covers its window; the coarse base layer fills in around it.
  private drawLane(lane: LaneBox, y: number): void {
    const d = this.detail, b = this.base;
    const v0 = this.viewStart, v1 = this.viewEnd;
    if (d?.windowUs) {
      const [d0, d1] = d.windowUs;
      if (b && v0 < d0) this.drawLayerLane(b, lane, y, v0, Math.min(v1, d0));
      if (b && v1 > d1) this.drawLayerLane(b, lane, y, Math.max(v0, d1), v1);
      if (d1 > v0 && d0 < v1) this.drawLayerLane(d, lane, y, Math.max(v0, d0), Math.min(v1, d1));
    } else if (b) this.drawLayerLane(b, lane, y, v0, v1);
  }

  private drawLayerLane(layer: Layer, box: LaneBox, y: number, t0: number, t1: number): void {
    const lane = layer.lanes.get(box.lane);
    if (!lane) return;
    const c = this.ctx;
    const xa = Math.max(HEADING_W, this.x(t0)), xb = this.x(t1);
    c.save(); c.beginPath(); c.rect(xa, y, Math.max(0, xb - xa), box.h); c.clip();
    if (lane.counter) { this.drawCounter(lane, y + 2, box.h - 4, t0, t1); c.restore(); return; }
    const scale = this.plotWidth / (this.viewEnd - this.viewStart);
    const names = this.names.names;
    lane.rows.forEach((row, depth) => {
      const ry = y + 2 + depth * ROW_H;
      let i = firstVisible(row, t0);
      // Slices under 2 px merge into runs drawn in the colour of their first slice.
      let runX0 = -1, runX1 = -1, runColor = '';
      // Merged runs are drawn paler than single slices so that density does not read as one long event.
      const flush = () => {
        if (runX0 < 0) return;
        c.globalAlpha = 0.55; c.fillStyle = runColor; c.fillRect(runX0, ry + 2, Math.max(1, runX1 - runX0), ROW_H - 6); c.globalAlpha = 1;
        runX0 = -1;
      };
      for (; i < row.start.length && row.start[i] <= t1; i++) {
        const x0 = HEADING_W + (row.start[i] - this.viewStart) * scale;
        const wpx = row.dur[i] * scale;
        const sel = this.selected;
        const isSelected = !!sel && sel.lane === box.lane && sel.start === row.start[i] && sel.name === names[row.name[i]];
        if (wpx < 2 && !isSelected) {
          if (runX0 >= 0 && x0 <= runX1 + 1) runX1 = Math.max(runX1, x0 + Math.max(1, wpx));
          else {
            flush(); runX0 = x0; runX1 = x0 + Math.max(1, wpx);
            runColor = this.highlight && !this.highlight.has(row.name[i]) ? '#dde1e7' : colorFor(names[row.name[i]]);
          }
          continue;
        }
        flush();
        const name = names[row.name[i]];
        const dim = this.highlight && !this.highlight.has(row.name[i]);
        c.fillStyle = dim ? '#dde1e7' : colorFor(name);
        // The selection is never thinner than 4 px, so that a short event a link led to can be seen.
        const drawnW = isSelected ? Math.max(wpx, 4) : wpx, drawnX0 = isSelected ? x0 + wpx / 2 - drawnW / 2 : x0;
        const xs = Math.max(drawnX0, HEADING_W - 2), xe = Math.min(drawnX0 + drawnW, HEADING_W + this.plotWidth + 2);
        c.fillRect(xs, ry, xe - xs - 0.5, ROW_H - 2);
        if (xe - xs > 36) {
          c.fillStyle = dim ? '#888' : '#fff';
          c.fillText(fitText(name, xe - xs - 6), xs + 3, ry + ROW_H / 2);
        }
        if (sel?.raw.bind_id !== undefined && row.raw[i].bind_id === sel.raw.bind_id) {
          this.flowBoxes.push({ x0: xs, x1: xe, y: ry + ROW_H / 2, out: !!row.raw[i].flow_out });
        }
        if (isSelected) {
          // Outlined in black inside an orange halo: visible on any slice colour, dimmed or not.
          c.strokeStyle = '#ff8c00'; c.lineWidth = 3; c.strokeRect(xs - 1.5, ry - 1.5, xe - xs + 3, ROW_H + 1);
          c.strokeStyle = '#000'; c.lineWidth = 2; c.strokeRect(xs + 1, ry + 1, Math.max(1, xe - xs - 2), ROW_H - 4); c.lineWidth = 1;
          // Where the selection is on screen, for keyboard users' scroll-into-view and for tests.
          const r = this.canvas.getBoundingClientRect();
          this.canvas.dataset.selectedX = String(Math.round(r.left + (xs + xe) / 2));
          this.canvas.dataset.selectedY = String(Math.round(r.top + ry + ROW_H / 2));
          this.canvas.dataset.selectedW = (xe - xs).toFixed(1);
          this.canvas.dataset.selectedKey = `${box.lane}|${row.start[i]}`;
        }
      }
      flush();
    });
    c.restore();
  }

  private drawCounter(lane: Lane, y: number, h: number, t0: number, t1: number): void {
    const k = lane.counter!, c = this.ctx;
    if (k.ts.length === 0) return;
    let i = 0, lo = 0, hi = k.ts.length;
    while (lo < hi) { const m = (lo + hi) >> 1; if (k.ts[m] < t0) lo = m + 1; else hi = m; }
    i = Math.max(0, lo - 1);
    const max = k.max || 1;
    c.fillStyle = 'rgba(78,121,167,0.55)';
    c.beginPath(); c.moveTo(this.x(k.ts[i]), y + h);
    for (; i < k.ts.length; i++) {
      const x = this.x(k.ts[i]), v = y + h - (Math.max(0, k.value[i]) / max) * h;
      c.lineTo(x, v);
      const nx = i + 1 < k.ts.length ? this.x(k.ts[i + 1]) : this.x(t1);
      c.lineTo(nx, v);
      if (k.ts[i] > t1) break;
    }
    c.lineTo(this.x(Math.min(t1, k.ts[Math.min(i, k.ts.length - 1)])), y + h);
    c.closePath(); c.fill();
  }

  private drawRuler(w: number): void {
    const c = this.ctx;
    c.fillStyle = '#f6f7f9'; c.fillRect(0, 0, w, RULER_H);
    c.fillStyle = '#ccc'; c.fillRect(0, RULER_H - 1, w, 1);
    const span = this.viewEnd - this.viewStart;
    const target = span / Math.max(1, this.plotWidth / 110);
    const p = Math.pow(10, Math.floor(Math.log10(target)));
    const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= target) ?? 10 * p;
    c.fillStyle = '#444'; c.font = '10px sans-serif';
    // Times on the ruler count from the start of the profile, as in xprof's viewer (not the clock's own origin).
    const origin = this.bounds ? this.bounds[0] : 0;
    const ticks: [number, string][] = [];
    for (let k = Math.ceil((this.viewStart - origin) / step); origin + k * step <= this.viewEnd; k++) {
      const x = this.x(origin + k * step), label = formatTime(k * step, step);
      c.fillRect(x, RULER_H - 7, 1, 6);
      c.fillText(label, x + 3, 9);
      ticks.push([Math.round(x), label]);
    }
    c.fillText(`${formatTime(span, span)} visible`, 6, 9, HEADING_W - 12);
    // The ticks and the ruler's extent, for the browser tests (the ruler is drawn on the canvas).
    this.canvas.dataset.ruler = JSON.stringify({ height: RULER_H, plotLeft: HEADING_W, origin, ticks });
  }

  private hit(x: number, y: number): Selected | null {
    const cy = y - RULER_H + this.scrollY;
    const box = this.lanes.find((l) => cy >= l.y && cy < l.y + l.h);
    if (!box || box.counter || x < HEADING_W) return null;
    const depth = Math.floor((cy - box.y - 2) / ROW_H);
    const t = this.t(x), slop = (3 / this.plotWidth) * (this.viewEnd - this.viewStart);
    const inDetail = this.detail?.windowUs && t >= this.detail.windowUs[0] && t <= this.detail.windowUs[1];
    const layer = inDetail ? this.detail : this.base;
    const row = layer?.lanes.get(box.lane)?.rows[depth];
    if (!row) return null;
    let best = -1;
    for (let i = firstVisible(row, t - slop); i < row.start.length && row.start[i] <= t + slop; i++) {
      if (row.start[i] - slop <= t && row.start[i] + row.dur[i] + slop >= t) { best = i; if (row.start[i] <= t && row.start[i] + row.dur[i] >= t) break; }
    }
    if (best < 0) return null;
    return { lane: box.lane, raw: row.raw[best], start: row.start[best], dur: row.dur[best], name: this.names.names[row.name[best]] };
  }

  select(s: Selected | null): void {
    this.selected = s;
    this.revealSelection = !!s;
    if (s) this.scrollToLane(s.lane);
    this.onSelect(s);
    this.requestDraw();
  }

  layers(): (Layer | null)[] { return [this.base, this.detail]; }

  // The layer that holds the events of a time range: the detail window when it covers it, else the coarse base.
  layerFor(t0: number, t1: number): { layer: Layer | null; which: 'base' | 'detail' } {
    const w = this.detail?.windowUs;
    return w && t0 >= w[0] && t1 <= w[1] ? { layer: this.detail, which: 'detail' } : { layer: this.base, which: 'base' };
  }

  setBox(b: BoxSelection | null): void { this.box = b; this.onBox(b); this.requestDraw(); }

  private boxFrom(d: { x0: number; y0: number; x1: number; y1: number }): BoxSelection {
    const ya = Math.min(d.y0, d.y1) - RULER_H + this.scrollY, yb = Math.max(d.y0, d.y1) - RULER_H + this.scrollY;
    const lanes = this.lanes.filter((l) => !l.counter && l.y < yb && l.y + l.h > ya).map((l) => l.lane);
    return { t0: this.t(Math.min(d.x0, d.x1)), t1: this.t(Math.max(d.x0, d.x1)), lanes };
  }

  // ←/→: the previous or next event of the selection's row, brought into view.
  private step(dir: 1 | -1): void {
    const s = this.selected;
    if (!s) return;
    const lane = this.layerFor(s.start, s.start).layer?.lanes.get(s.lane);
    for (const row of lane?.rows ?? []) {
      let i = firstVisible(row, s.start);
      while (i < row.start.length && row.start[i] < s.start) i++;
      if (i >= row.start.length || row.start[i] !== s.start || this.names.names[row.name[i]] !== s.name) continue;
      const j = i + dir;
      if (j < 0 || j >= row.start.length) return;
      const next: Selected = { lane: s.lane, raw: row.raw[j], start: row.start[j], dur: row.dur[j], name: this.names.names[row.name[j]] };
      const w = this.viewEnd - this.viewStart;
      if (next.start < this.viewStart || next.start + next.dur > this.viewEnd) this.setView(next.start + next.dur / 2 - w / 2, next.start + next.dur / 2 + w / 2);
      this.select(next);
      return;
    }
  }

  // F: the view fits the box selection, else the selected event (with a tenth of margin each side).
  private fitSelection(): void {
    const range = this.box ? [this.box.t0, this.box.t1] : this.selected ? [this.selected.start, this.selected.start + this.selected.dur] : null;
    if (!range) return;
    const pad = Math.max((range[1] - range[0]) * 0.1, 1e-3);
    this.setView(range[0] - pad, range[1] + pad);
  }

  laneTitle(key: string): string {
    const box = this.lanes.find((l) => l.lane === key);
    return `${this.meta.processNames.get(box?.pid ?? '') ?? box?.pid ?? ''} / ${box?.title ?? key}`;
  }

  private bindInput(): void {
    const cv = this.canvas;
    cv.addEventListener('wheel', (e) => {
      e.preventDefault();
      const r = cv.getBoundingClientRect();
      const modifier = e.ctrlKey || e.altKey || e.metaKey;
      const zoom = this.wheelMode === 'zoom' ? !e.shiftKey && !modifier : modifier;
      if (this.wheelMode === 'zoom' && e.shiftKey) { this.scrollY += e.deltaY; this.revealSelection = false; this.requestDraw(); }
      else if (zoom) this.zoomBy(Math.pow(1.0015, e.deltaY), e.clientX - r.left);
      else if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) this.panBy((e.shiftKey ? e.deltaY : e.deltaX) / this.plotWidth);
      else { this.scrollY += e.deltaY; this.revealSelection = false; this.requestDraw(); }
    }, { passive: false });
    let drag: { x: number; y: number; v0: number; v1: number; sy: number; moved: boolean } | null = null;
    cv.addEventListener('mousedown', (e) => {
      cv.focus();
      const r = cv.getBoundingClientRect();
      if (e.shiftKey) {
        const x = Math.max(HEADING_W, e.clientX - r.left), y = Math.max(RULER_H, e.clientY - r.top);
        this.boxDrag = { x0: x, y0: y, x1: x, y1: y };
        return;
      }
      drag = { x: e.clientX, y: e.clientY, v0: this.viewStart, v1: this.viewEnd, sy: this.scrollY, moved: false };
    });
    window.addEventListener('mousemove', (e) => {
      const r = cv.getBoundingClientRect();
      this.mouseX = e.clientX - r.left;
      if (this.boxDrag) {
        this.boxDrag.x1 = Math.max(HEADING_W, Math.min(r.width, e.clientX - r.left));
        this.boxDrag.y1 = Math.max(RULER_H, Math.min(r.height, e.clientY - r.top));
        this.requestDraw();
        return;
      }
      if (!drag) return;
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      if (!drag.moved) return;
      this.revealSelection = false;
      const dt = (dx / this.plotWidth) * (drag.v1 - drag.v0);
      this.scrollY = drag.sy - dy;
      this.setView(drag.v0 - dt, drag.v1 - dt);
    });
    window.addEventListener('mouseup', (e) => {
      if (this.boxDrag) {
        const d = this.boxDrag;
        this.boxDrag = null;
        this.setBox(Math.abs(d.x1 - d.x0) > 3 ? this.boxFrom(d) : null);
        return;
      }
      if (!drag) return;
      const wasDrag = drag.moved;
      drag = null;
      if (wasDrag) return;
      const r = cv.getBoundingClientRect();
      const x = e.clientX - r.left, y = e.clientY - r.top;
      if (x < HEADING_W && y > RULER_H) {
        const cy = y - RULER_H + this.scrollY;
        const p = this.procs.find((b) => cy >= b.y && cy < b.y + PROC_H);
        if (p) { if (this.collapsed.has(p.pid)) this.collapsed.delete(p.pid); else this.collapsed.add(p.pid); this.relayout(); this.requestDraw(); }
        return;
      }
      this.selected = this.hit(x, y);
      this.onSelect(this.selected);
      this.requestDraw();
    });
    // W/S zoom and A/D pan as in chrome://tracing; anywhere on the page unless typing.
    window.addEventListener('keydown', (e) => {
      const target = e.target as HTMLElement;
      if (!cv.isConnected || target.tagName === 'INPUT' || target.tagName === 'SELECT' || target.tagName === 'TEXTAREA') return;
      const anchor = this.mouseX >= HEADING_W ? this.mouseX : undefined;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
      if (k === 'w') this.zoomBy(0.8, anchor);
      else if (k === 's') this.zoomBy(1.25, anchor);
      else if (k === 'a') this.panBy(-0.1);
      else if (k === 'd') this.panBy(0.1);
      else if (k === 'ArrowRight' || k === 'ArrowLeft') this.step(k === 'ArrowRight' ? 1 : -1);
      else if (k === 'f') this.fitSelection();
      else if (k === 'z') { if (this.bounds) this.setView(this.bounds[0], this.bounds[1]); }
      else if (k === '?') this.onHelp();
      else if (k === 'Escape') { this.setBox(null); }
      else return;
      e.preventDefault();
    });
  }
}

export function formatTime(us: number, step: number): string {
  if (!(Math.abs(step) > 0)) return `${us.toFixed(3)} µs`;
  const a = Math.abs(step);
  if (a >= 1e6) return `${(us / 1e6).toFixed(a >= 1e7 ? 1 : 3)} s`;
  if (a >= 1e3) return `${(us / 1e3).toFixed(a >= 1e4 ? 1 : 3)} ms`;
  if (a >= 1) return `${us.toFixed(a >= 10 ? 0 : 3)} µs`;
  return `${(us * 1e3).toFixed(1)} ns`;
}
