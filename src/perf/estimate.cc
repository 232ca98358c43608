#include "aicost/perf/estimate.h"

#include <algorithm>
#include <string>

#include "aicost/perf/comm.h"
#include "layer_time.h"

namespace aicost::perf {

using workload::OptimizerSharding;

namespace {

// Exposed DP time: gradient reduce(-scatter) and, with a sharded optimizer, the parameter
// all-gather; each hidden behind compute by `dp_overlap` when its overlap flag is on.
core::Seconds dp_time(const workload::TrainingJob& job, const LocalParams& lp) {
  const auto& par = job.parallel;
  const auto& e = job.efficiency;
  const double grad_bytes = par.grad_reduce_in_fp32 ? 4.0 : 2.0;
  const bool sharded = par.sharding != OptimizerSharding::kNone;
  const Group dense{job.data_parallel() * par.context, par.tensor};
  const Group expert{job.expert_data_parallel(), job.expert_tensor() * par.expert};
  core::Seconds reduce(0), gather(0);
  for (const auto& [group, params] : {std::pair{dense, lp.dense}, std::pair{expert, lp.expert}}) {
    if (params <= 0 || group.size <= 1) continue;
    const core::Bytes grads(grad_bytes * params);
    reduce += collective_time(job, sharded ? Collective::kReduceScatter : Collective::kAllReduce,
                              group, grads);
    if (sharded)
      gather += collective_time(job, Collective::kAllGather, group, core::Bytes(2 * params));
    if (par.sharding == OptimizerSharding::kZero3) {
      // FSDP gathers parameters again for forward and backward of every micro-batch.
      gather += collective_time(job, Collective::kAllGather, group, core::Bytes(2 * params)) *
                (2.0 * job.micro_batches());
    }
  }
  const double hidden_reduce = par.overlap_grad_reduce ? e.dp_overlap : 0.0;
  const double hidden_gather = par.overlap_param_gather ? e.dp_overlap : 0.0;
  return reduce * (1 - hidden_reduce) + gather * (1 - hidden_gather);
}

}  // namespace

DataReads data_reads(const workload::TrainingJob& job) {
  const auto& par = job.parallel;
  const double loading_stages = std::min(par.pipeline, 2);
  DataReads r;
  r.per_step = core::Bytes(static_cast<double>(job.global_batch) * job.seq_length *
                           job.data.bytes_per_token * loading_stages * par.context);
  // The GPUs of the loading stages, on whole nodes (rank order tp-cp-dp-pp: a stage is contiguous).
  r.reading_nodes =
      std::max(1.0, job.cluster.gpus * loading_stages / par.pipeline / job.cluster.gpus_per_node);
  r.rate = job.data.per_node * r.reading_nodes + job.data.shared;
  return r;
}

core::Result<TrainingEstimate> estimate_training(const workload::TrainingJob& job) {
  return estimate_training(job, estimate_memory(job));
}

core::Result<TrainingEstimate> estimate_training(const workload::TrainingJob& job,
                                                 const MemoryBreakdown& memory) {
  const auto& m = job.model;
  const auto& par = job.parallel;
  const auto peak = job.cluster.gpu.peak(job.precision);
  if (!peak) {
    return core::make_error(core::ErrorCode::kInvalidInput,
                            std::string(job.cluster.gpu.id) + " has no " +
                                catalog::to_string(job.precision) +
                                " tensor-core peak in the catalog; choose another precision",
                            "training.precision");
  }
  TrainingEstimate est;
  est.peak_precision = job.precision;
  est.peak_per_gpu = *peak;

  const double mb = job.micro_batches();
  const double p = par.pipeline;
  const double v = par.virtual_pipeline;
  const double layers_per_stage = job.layers_per_stage();
  const double moe_share = static_cast<double>(m.moe_layers()) / m.layers();

  const LayerTime dense = layer_time(job, false);
  const LayerTime moe = m.is_moe() ? layer_time(job, true) : LayerTime{};
  auto mix = [&](auto field) { return dense.*field * (1 - moe_share) + moe.*field * moe_share; };
  LayerTime layer;
  layer.compute = mix(&LayerTime::compute);
  layer.recompute = mix(&LayerTime::recompute);
  layer.tp = mix(&LayerTime::tp);
  layer.cp = mix(&LayerTime::cp);
  layer.ep = mix(&LayerTime::ep);
  // The last stage also runs the output layer, the loss and any MTP layers.
  LayerTime last = logits_time(job);
  const double mtp = m.spec().mtp_num_layers;
  const LayerTime& mtp_layer = m.is_moe() ? moe : dense;
  last.compute += mtp_layer.compute * mtp;
  last.recompute += mtp_layer.recompute * mtp;

  const core::Seconds stage = layer.total() * layers_per_stage;
  auto& st = est.step;
  st.compute = (layer.compute * layers_per_stage + last.compute) * mb;
  st.recompute = (layer.recompute * layers_per_stage + last.recompute) * mb;
  st.tp_comm = layer.tp * layers_per_stage * mb;
  st.cp_comm = layer.cp * layers_per_stage * mb;
  st.ep_comm = layer.ep * layers_per_stage * mb;
  // 1F1B: (p-1)/v idle micro-batch slots at fill and drain (Narayanan et al. SC'21 §2.2).
  st.bubble = stage * ((p - 1) / v);
  if (par.pipeline > 1) {
    // Activations forward and gradients backward, per micro-batch and model chunk; Megatron
    // sends the 1/t shard (scatter-gather optimisation).
    const core::Bytes msg(par.micro_batch * static_cast<double>(job.seq_length) / par.context *
                          m.hidden() * 2 / par.tensor);
    const int stride = par.tensor * par.context * job.data_parallel();
    st.pp_comm = collective_time(job, Collective::kSendRecv, Group{par.pipeline, stride}, msg) *
                 (2 * v * mb);
  }
  const LocalParams lp = local_params(job);
  st.dp_comm = dp_time(job, lp);
  double opt_params = lp.dense + lp.expert;
  if (par.sharding != OptimizerSharding::kNone) {
    opt_params =
        lp.dense / (job.data_parallel() * par.context) + lp.expert / job.expert_data_parallel();
  }
  st.optimizer = core::Bytes(opt_params * job.efficiency.optimizer_bytes_per_param) /
                     (job.cluster.gpu.memory_bandwidth * job.efficiency.memory_bound) +
                 job.efficiency.step_overhead;

  if (job.data.limited()) {
    // A prefetching loader reads the next step's batch during this one: the GPUs wait only for
    // the part of the read that outlasts the step.
    const DataReads reads = data_reads(job);
    const core::Seconds read = reads.per_step / reads.rate;
    if (read > st.total()) st.data_loading = read - st.total();
  }
  est.step_time = st.total();
  est.tokens_per_step = static_cast<double>(job.global_batch) * job.seq_length;
  est.tokens_per_s = est.tokens_per_step / est.step_time.value();
  est.tokens_per_s_per_gpu = est.tokens_per_s / job.cluster.gpus;
  est.model_flops_per_token = training_flops_per_token(m, job.seq_length, FlopConvention::kCausal);
  // Hardware FLOPs per token: the executed work of one GPU's layers, scaled to the whole model.
  const double tokens_per_mb = par.micro_batch * static_cast<double>(job.seq_length);
  const double hw_per_mb_per_gpu =
      (dense.hardware_flops * (1 - moe_share) + moe.hardware_flops * moe_share) * layers_per_stage +
      (last.hardware_flops) / p;
  const double gpus_per_replica = par.tensor * par.context * p;
  est.hardware_flops_per_token = hw_per_mb_per_gpu * gpus_per_replica / tokens_per_mb;
  est.model_flops_per_gpu =
      core::FlopsPerSecond(est.model_flops_per_token * est.tokens_per_s_per_gpu);
  est.mfu = est.model_flops_per_gpu / *peak;
  est.hfu = est.hardware_flops_per_token * est.tokens_per_s_per_gpu / peak->value();
  est.steps = job.steps();
  est.compute_time = est.step_time * est.steps;
  est.gpu_hours = core::in_hours(est.compute_time) * job.cluster.gpus;
  est.memory = memory;
  return est;
}

}  // namespace aicost::perf
