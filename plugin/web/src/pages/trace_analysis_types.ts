// The trace_analysis tool's JSON (one section per analysis, rows per rank and stream), and the page's small
// helpers over it. Every figure may be null: the server could not compute it, and the page shows "—".
import { el } from '../dom';

type N = number | null;

export interface TemporalRow { rank: number; host?: string; idle_time_us: N; compute_time_us: N; non_compute_time_us: N; kernel_time_us: N;
  idle_time_pctg: N; compute_time_pctg: N; non_compute_time_pctg: N }
export interface KernelTypeRow { rank: number; host?: string; kernel_type: string; sum_us: N; percentage: N }
export interface TopKernelRow { rank: number; host?: string; kernel_type: string; name: string; sum_us: N; max_us: N; min_us: N; stddev_us: N; mean_us: N; count: N }
export interface IdleRow { rank: number; host?: string; device?: number | string; stream: number | string; idle_category: string; idle_time_us: N; idle_time_ratio: N }
export interface QueueRow { rank: number; host?: string; device?: number | string; stream: number | string; count: N; mean: N; std: N; min: N; p25: N; p50: N; p75: N; max: N;
  time_blocked_on_full_queue_us: N; blocked_pctg: N }
export interface QueueSeries { rank: number; host?: string; device?: number | string; stream: number | string; points: [number, number][] }
export interface LaunchSummary { rank: number; host?: string; launches: N; short_kernels: N; short_kernel_pctg: N; launch_delay_outliers: N;
  mean_launch_delay_us: N; p50_launch_delay_us: N; p95_launch_delay_us: N }
export interface Launch { rank: number; host?: string; correlation: number | string; cpu_duration_us: N; gpu_duration_us: N; launch_delay_us: N }
export interface StragglerRow { rank: number; host?: string; step_time_us: N; compute_us: N; communication_us: N; idle_us: N; straggler: boolean | null; reason: string | null }
export interface Collective { rank: number; host?: string; name: string; count: N; bytes: N; time_us: N; bus_bandwidth_gbps: N }
export interface Segment { kind: string; name: string; rank: number; host?: string; start_us: N; duration_us: N; share_pctg: N }
export interface RooflineRow { rank: number; host?: string; op: string; input_dims?: string; input_types?: string; count: N; time_us: N; flops: N; bytes: N; tflops_per_s: N; arithmetic_intensity: N; bound: string | null }

export interface TraceAnalysis {
  framework?: string;
  ranks?: { rank: number; host: string }[];
  hosts_left_out?: { host: string; reason: string }[];
  temporal_breakdown?: { include_last_profiler_step?: boolean; rows?: TemporalRow[] };
  kernel_breakdown?: { kernel_types?: KernelTypeRow[]; top_kernels?: TopKernelRow[] };
  comm_comp_overlap?: { rows?: { rank: number; host?: string; comp_comm_overlap_pctg: N }[] };
  idle_time_breakdown?: { thresholds?: Record<string, unknown>; rows?: IdleRow[] };
  queue_length?: { max_queue_length?: N; rows?: QueueRow[]; series?: QueueSeries[] };
  kernel_launch?: { thresholds?: Record<string, unknown>; summary?: LaunchSummary[]; delay_histogram?: { rank: number; host?: string; bins: { from_us: number; to_us: number | null; count: number }[] }[];
    launches?: Launch[]; launches_total?: N };
  stragglers?: { band?: Record<string, unknown>; rows?: StragglerRow[]; collectives?: Collective[] };
  critical_path?: { step?: N; whole_profile?: boolean; steps?: number[]; length_us?: N; segments?: Segment[]; reason?: string };
  op_roofline?: { peaks?: { tflops: N; memory_gbps: N; device?: string }; rows?: RooflineRow[]; reason?: string };
}

export const DASH = '—';

// Two hosts may state the same rank (two runs of one job side by side), and the server's rows name the rank only.
// Rows come host by host in the order of `ranks`: the k-th block of a rank's rows is the k-th host with that rank;
// a block ends where a row's key (its stream, category…) repeats. A row that names its host keeps it.
function assignHosts<R extends { rank: number; host?: string }>(rows: R[] | undefined, ranks: { rank: number; host: string }[], key: (r: R) => string): void {
  const block = new Map<number, { at: number; seen: Set<string> }>();
  for (const r of rows ?? []) {
    if (typeof r.host === 'string') continue;
    const hosts = ranks.filter((x) => x.rank === r.rank).map((x) => x.host);
    const b = block.get(r.rank) ?? { at: 0, seen: new Set<string>() };
    const k = key(r);
    if (b.seen.has(k)) { b.at++; b.seen.clear(); }
    b.seen.add(k);
    block.set(r.rank, b);
    r.host = hosts[Math.min(b.at, hosts.length - 1)] ?? '';
  }
}

// Gives every row of every section its host, so that a rank is known by rank and host together (rankId).
export function withHosts(d: TraceAnalysis): TraceAnalysis {
  const ranks = d.ranks ?? [];
  const one = () => '';
  const stream = (r: { device?: unknown; stream: unknown }) => `${String(r.device ?? '')}/${String(r.stream)}`;
  assignHosts(d.temporal_breakdown?.rows, ranks, one);
  assignHosts(d.kernel_breakdown?.kernel_types, ranks, (r) => r.kernel_type);
  assignHosts(d.kernel_breakdown?.top_kernels, ranks, (r) => `${r.kernel_type}|${r.name}`);
  assignHosts(d.comm_comp_overlap?.rows, ranks, one);
  assignHosts(d.idle_time_breakdown?.rows, ranks, (r) => `${stream(r)}|${r.idle_category}`);
  assignHosts(d.queue_length?.rows, ranks, stream);
  assignHosts(d.queue_length?.series, ranks, stream);
  assignHosts(d.kernel_launch?.summary, ranks, one);
  assignHosts(d.kernel_launch?.delay_histogram, ranks, one);
  assignHosts(d.kernel_launch?.launches, ranks, (r) => String(r.correlation));
  assignHosts(d.stragglers?.rows, ranks, one);
  assignHosts(d.stragglers?.collectives, ranks, (r) => r.name);
  let segment = 0;
  assignHosts(d.critical_path?.segments, ranks, () => String(segment++));
  assignHosts(d.op_roofline?.rows, ranks, (r) => r.op);
  return d;
}

// A rank as the page knows it: its number and its host.
export function rankId(r: { rank: number; host?: string }): string { return `${r.rank}|${r.host ?? ''}`; }

export function isNum(v: unknown): v is number { return typeof v === 'number' && Number.isFinite(v); }

// A figure or "—" with the reason as its tooltip; a known figure carries its served value (data-json) for the walk.
export function figure(v: unknown, fmt: (x: number) => string, unit = '', why = 'Unknown: the server could not compute this figure from the profile.'): HTMLElement {
  if (!isNum(v)) return el('span', { class: 'unknown', title: why }, DASH);
  return el('span', { 'data-json': String(v), 'data-json-unit': unit }, fmt(v));
}

export const pct = (v: number) => `${v.toFixed(1)}%`;

// Counts of FLOPs and bytes in full (never in exponent form), grouped by thousands.
export const whole = (v: number) => Math.round(v).toLocaleString('en-US');

// "name = value" of a thresholds object, as the server names them.
export function thresholdsText(t: Record<string, unknown> | undefined): string {
  const parts = Object.entries(t ?? {}).filter(([, v]) => v !== null && typeof v !== 'object').map(([k, v]) => `${k} = ${String(v)}`);
  return parts.length ? `Thresholds: ${parts.join(', ')}.` : '';
}

// "rank 3", or with its host where the answer has several ranks.
export function rankLabel(id: string, multi: boolean): string {
  const [rank, host] = [id.slice(0, id.indexOf('|')), id.slice(id.indexOf('|') + 1)];
  return multi && host ? `rank ${rank} (${host})` : `rank ${rank}`;
}
