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
export interface RooflineRow { rank: number; host?: string; op: string; input_dims?: string; input_types?: string; count: N; time_us: N; flops: N; bytes: N; tflops_per_s: N; arithmetic_intensity: N;
  roof_precision?: string | null; compute_roof_tflops?: N; memory_roof_tflops?: N; roof_tflops?: N; ridge_intensity?: N; roof_pctg?: N; bound: string | null }
export interface RooflinePeaks { device?: string; gpu_name?: string | null; datasheet?: string | null; tflops: N; memory_gbps: N;
  fp32_tflops?: N; tf32_tflops?: N; fp16_tflops?: N; bf16_tflops?: N }

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
  op_roofline?: { peaks?: RooflinePeaks; rows?: RooflineRow[]; reason?: string };
}

export const DASH = '—';

// A rank as the page knows it: its number and its host.
// The server names every row's host beside its rank: two hosts may state the same rank.
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
