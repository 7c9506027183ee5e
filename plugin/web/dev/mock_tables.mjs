// Tables for tools that have no recorded sample in testdata, built with the
// column ids and labels xprof uses (kernel_stats, tf_data_bottleneck_analysis).
const col = (id, label, type) => ({ id, label, type });

export function kernelStats() {
  const cols = [col('rank', 'Rank', 'number'), col('kernel_name', 'Kernel Name', 'string'), col('registers_per_thread', 'Registers per thread', 'number'),
    col('shmem_bytes', 'Shared Mem bytes', 'number'), col('block_dim', 'Block dim', 'string'), col('grid_dim', 'Grid dim', 'string'),
    col('occupancy_pct', 'Occupancy %', 'number'), col('is_op_tensor_core_eligible', 'Op is TensorCore eligible', 'boolean'),
    col('is_kernel_using_tensor_core', 'Kernel uses TensorCore', 'boolean'), col('op_name', 'Op Name', 'string'),
    col('occurrences', 'Occurrences', 'number'), col('total_duration_us', 'Total Duration (us)', 'number'),
    col('avg_duration_us', 'Avg Duration (us)', 'number'), col('min_duration_us', 'Min Duration (us)', 'number'), col('max_duration_us', 'Max Duration (us)', 'number')];
  const kernels = ['volta_h884gemm_128x128_ldg8_nn', 'ampere_s16816gemm_fp16_256x128', 'void tensorflow::BiasNHWCKernel<float>', 'redzone_checker',
    'void cudnn::winograd_nonfused::winogradForwardData4x4', 'void Eigen::internal::EigenMetaKernel'];
  const rows = kernels.map((k, i) => {
    const occ = 10 * (i + 1), total = 1000 / (i + 1);
    return { c: [{ v: i + 1 }, { v: k }, { v: 32 + i }, { v: 1024 * i }, { v: '128,1,1' }, { v: `${i + 1},1,1` }, { v: 50 + i }, { v: i < 3 },
      { v: i < 2 }, { v: `model/layer_${i}/MatMul` }, { v: occ }, { v: total }, { v: total / occ }, { v: total / occ / 2 }, { v: total / occ * 2 }] };
  });
  return { cols, rows };
}

export function tfDataStats() {
  const graphCols = [col('host', 'Host', 'string'), col('input_pipeline', 'Input Pipeline', 'string'), col('rank', 'Rank', 'number'),
    col('name', 'Name', 'string'), col('parent', 'Parent', 'string'), col('type', 'Type', 'number')];
  const node = (id, name, self, parent, type, rank = 0) => ({ c: [{ v: 'host0' }, { v: 'Host:0' }, { v: rank },
    { v: String(id), f: `<div><b>${name}</b><br/><div>Start Time: 0 us<br/>Total Duration: ${self * 2} us<br/>Self Duration: ${self} us<br/># Calls: 1</div></div>` },
    { v: parent }, { v: type }] });
  const graph = { cols: graphCols, rows: [node(1, 'Prefetch', 5, '', 1), node(2, 'Batch', 20, '1', 1), node(3, 'Map', 180, '2', 2), node(4, 'TFRecord', 30, '3', 1),
    node(5, 'Shuffle', 2, '2', 0), node(1, 'Prefetch', 3, '', 1, 1), node(2, 'Batch', 9, '1', 2, 1)] };
  const summary = { cols: [col('host', 'Host', 'string'), col('input_pipeline', 'Input Pipeline', 'string'), col('min', 'Min (us)', 'number'),
    col('mean', 'Avg (us)', 'number'), col('max', 'Max (us)', 'number'), col('num_calls', '# calls', 'number'), col('num_slow_calls', '# slow calls', 'number')],
  rows: [{ c: [{ v: 'host0' }, { v: 'Host:0' }, { v: 12 }, { v: 140 }, { v: 420 }, { v: 50 }, { v: 31 }] }] };
  const bottleneck = { cols: [col('host', 'Host', 'string'), col('input_pipeline', 'Input Pipeline', 'string'), col('max_latency', 'Max Latency (us)', 'number'),
    col('bottleneck', 'Bottleneck', 'string'), col('suggestion', 'Suggestion', 'string')],
  rows: [{ c: [{ v: 'host0' }, { v: 'Host:0' }, { v: 420 }, { v: '<u>Iterator Type</u>: <b>Map</b><br/><u>Long Name</u>: Iterator::Prefetch::Batch::Map<br/><u>Latency</u>: 180 us' },
    { v: 'See <a href="https://www.tensorflow.org/guide/data_performance_analysis" target="_blank">this</a> for suggestions.' }] }],
  p: { is_input_bound: 'true', summary_message: 'Your program is input bound: 42% of the step time is spent waiting for input.' } };
  return [graph, summary, bottleneck];
}
