// The trace_analysis tool's JSON (one section per analysis, rows per rank and stream), and the page's small
// helpers over it. Every figure may be null: the server could not compute it, and the page shows "—".
import { el } from '../dom';

type N = number | null;

export interface TemporalRow { rank: number; idle_time_us: N; compute_time_us: N; non_compute_time_us: N; kernel_time_us: N;
  idle_time_pctg: N; compute_time_pctg: N; non_compute_time_pctg: N }
export interface KernelTypeRow { rank: number; kernel_type: string; sum_us: N; percentage: N }
export interface TopKernelRow { rank: number; kernel_type: string; name: string; sum_us: N; max_us: N; min_us: N; stddev_us: N; mean_us: N; count: N }
export interface IdleRow { rank: number; stream: number | string; idle_category: string; idle_time_us: N; idle_time_ratio: N }
export interface QueueRow { rank: number; stream: number | string; count: N; mean: N; std: N; min: N; p25: N; p50: N; p75: N; max: N;
  time_blocked_on_full_queue_us: N; blocked_pctg: N }
export interface QueueSeries { rank: number; stream: number | string; points: [number, number][] }
export interface LaunchSummary { rank: number; launches: N; short_kernels: N; short_kernel_pctg: N; launch_delay_outliers: N;
  mean_launch_delay_us: N; p50_launch_delay_us: N; p95_launch_delay_us: N }
export interface Launch { rank: number; correlation: number | string; cpu_duration_us: N; gpu_duration_us: N; launch_delay_us: N }
export interface StragglerRow { rank: number; step_time_us: N; compute_us: N; communication_us: N; idle_us: N; straggler: boolean | null; reason: string | null }
export interface Collective { rank: number; name: string; count: N; bytes: N; time_us: N; bus_bandwidth_gbps: N }
export interface Segment { kind: string; name: string; rank: number; start_us: N; duration_us: N; share_pctg: N }
export interface RooflineRow { rank: number; op: string; count: N; time_us: N; flops: N; bytes: N; tflops_per_s: N; arithmetic_intensity: N; bound: string | null }

export interface TraceAnalysis {
  framework?: string;
  ranks?: { rank: number; host: string }[];
  hosts_left_out?: { host: string; reason: string }[];
  temporal_breakdown?: { include_last_profiler_step?: boolean; rows?: TemporalRow[] };
  kernel_breakdown?: { kernel_types?: KernelTypeRow[]; top_kernels?: TopKernelRow[] };
  comm_comp_overlap?: { rows?: { rank: number; comp_comm_overlap_pctg: N }[] };
  idle_time_breakdown?: { thresholds?: Record<string, unknown>; rows?: IdleRow[] };
  queue_length?: { max_queue_length?: N; rows?: QueueRow[]; series?: QueueSeries[] };
  kernel_launch?: { thresholds?: Record<string, unknown>; summary?: LaunchSummary[]; delay_histogram?: { rank: number; bins: { from_us: number; to_us: number; count: number }[] }[];
    launches?: Launch[]; launches_total?: N };
  stragglers?: { band?: Record<string, unknown>; rows?: StragglerRow[]; collectives?: Collective[] };
  critical_path?: { step?: N; steps?: number[]; length_us?: N; segments?: Segment[]; reason?: string };
  op_roofline?: { peaks?: { tflops: N; memory_gbps: N; device?: string }; rows?: RooflineRow[]; reason?: string };
}

export const DASH = '—';

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

export function rankLabel(rank: number, ranks: { rank: number; host: string }[], multi: boolean): string {
  const host = ranks.find((r) => r.rank === rank)?.host;
  return multi && host ? `rank ${rank} (${host})` : `rank ${rank}`;
}
