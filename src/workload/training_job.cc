#include "aicost/workload/training_job.h"

#include <numeric>
#include <string>

namespace aicost::workload {

const char* to_string(Recompute r) {
  switch (r) {
    case Recompute::kNone: return "none";
    case Recompute::kSelective: return "selective";
    case Recompute::kFull: return "full";
  }
  return "?";
}

const char* to_string(OptimizerSharding s) {
  switch (s) {
    case OptimizerSharding::kNone: return "none";
    case OptimizerSharding::kZero1: return "zero1";
    case OptimizerSharding::kZero2: return "zero2";
    case OptimizerSharding::kZero3: return "zero3";
  }
  return "?";
}

const char* to_string(AttentionKernel k) {
  return k == AttentionKernel::kFlash ? "flash" : "unfused";
}

const char* to_string(MoeDispatcher d) { return d == MoeDispatcher::kFlex ? "flex" : "alltoall"; }

std::vector<int> divisors(int n) {
  std::vector<int> d;
  for (int i = 1; i <= n; ++i) {
    if (n % i == 0) d.push_back(i);
  }
  return d;
}

namespace {

using core::ErrorCode;
using core::make_error;
using std::to_string;

std::string join(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : ", ") + to_string(x);
  return s;
}

// Values from `candidates` that divide `n`, for "what would fit" hints.
std::vector<int> dividing(int n, const std::vector<int>& candidates) {
  std::vector<int> out;
  for (int c : candidates) {
    if (c > 0 && n % c == 0) out.push_back(c);
  }
  return out;
}

core::Error not_dividing(const std::string& key, int value, const std::string& what, int n,
                         const std::vector<int>& options) {
  return make_error(ErrorCode::kInvalidInput,
                    key + " " + to_string(value) + " does not divide " + what + " " + to_string(n) +
                        "; values that would: " + join(options),
                    "parallelism." + key);
}

}  // namespace

core::Status validate(const TrainingJob& job, std::vector<std::string>* warnings) {
  const auto& p = job.parallel;
  const auto& m = job.model;
  const struct {
    const char* key;
    int value;
  } positive[] = {{"tensor_model_parallel_size", p.tensor},
                  {"pipeline_model_parallel_size", p.pipeline},
                  {"virtual_pipeline_model_parallel_size", p.virtual_pipeline},
                  {"context_parallel_size", p.context},
                  {"expert_model_parallel_size", p.expert},
                  {"micro_batch_size", p.micro_batch}};
  for (const auto& f : positive) {
    if (f.value <= 0) {
      return make_error(ErrorCode::kInvalidInput,
                        std::string(f.key) + " must be >= 1, got " + to_string(f.value),
                        std::string("parallelism.") + f.key);
    }
  }
  if (job.cluster.gpus <= 0) {
    return make_error(ErrorCode::kInvalidInput, "gpus must be >= 1", "cluster.gpus");
  }
  if (job.seq_length <= 0) {
    return make_error(ErrorCode::kInvalidInput, "seq_length must be >= 1", "training.seq_length");
  }
  if (job.global_batch <= 0) {
    return make_error(ErrorCode::kInvalidInput, "global_batch_size must be >= 1",
                      "training.global_batch_size");
  }
  if (job.tokens <= 0) {
    return make_error(ErrorCode::kInvalidInput, "tokens must be > 0", "training.tokens");
  }

  const std::vector<int> powers = {1, 2, 4, 8, 16, 32, 64};
  if (m.heads() % p.tensor != 0) {
    return not_dividing("tensor_model_parallel_size", p.tensor, "num_attention_heads", m.heads(),
                        dividing(m.heads(), powers));
  }
  if (!m.spec().multi_latent_attention && m.kv_heads() % p.tensor != 0 &&
      p.tensor % m.kv_heads() != 0) {
    return not_dividing("tensor_model_parallel_size", p.tensor, "num_query_groups", m.kv_heads(),
                        dividing(m.kv_heads(), powers));
  }
  if (p.pipeline > m.layers()) {
    return make_error(ErrorCode::kInvalidInput,
                      "pipeline_model_parallel_size " + to_string(p.pipeline) +
                          " is larger than num_layers " + to_string(m.layers()),
                      "parallelism.pipeline_model_parallel_size");
  }
  const bool uneven = m.layers() % p.pipeline != 0;
  if (uneven && warnings) {
    warnings->push_back("num_layers " + to_string(m.layers()) +
                        " is not a multiple of "
                        "pipeline_model_parallel_size " +
                        to_string(p.pipeline) + ": the slowest stage holds " +
                        to_string((m.layers() + p.pipeline - 1) / p.pipeline) +
                        " layers (Megatron: decoder_first/last_pipeline_num_layers)");
  }
  if (!uneven && (m.layers() / p.pipeline) % p.virtual_pipeline != 0) {
    return not_dividing("virtual_pipeline_model_parallel_size", p.virtual_pipeline,
                        "layers per pipeline stage", m.layers() / p.pipeline,
                        divisors(m.layers() / p.pipeline));
  }
  if (job.seq_length % p.context != 0) {
    return not_dividing("context_parallel_size", p.context, "seq_length", job.seq_length,
                        dividing(job.seq_length, powers));
  }
  const int model_parallel = p.tensor * p.pipeline * p.context;
  if (job.cluster.gpus % model_parallel != 0) {
    return make_error(ErrorCode::kInvalidInput,
                      "tensor x pipeline x context parallel = " + to_string(model_parallel) +
                          " does not divide gpus " + to_string(job.cluster.gpus) +
                          "; use a GPU count that is a multiple of " + to_string(model_parallel),
                      "cluster.gpus");
  }
  const int dp = job.data_parallel();
  if (job.global_batch % (dp * p.micro_batch) != 0) {
    std::vector<int> mbs;
    for (int b : powers) {
      if (job.global_batch % (dp * b) == 0) mbs.push_back(b);
    }
    return make_error(ErrorCode::kInvalidInput,
                      "global_batch_size " + to_string(job.global_batch) +
                          " is not a multiple of micro_batch_size x data-parallel size (" +
                          to_string(p.micro_batch) + " x " + to_string(dp) + "); " +
                          (mbs.empty() ? "make global_batch_size a multiple of " + to_string(dp)
                                       : "micro_batch_size values that would fit: " + join(mbs)),
                      "training.global_batch_size");
  }
  if (m.is_moe()) {
    if (m.spec().num_moe_experts % p.expert != 0) {
      return not_dividing("expert_model_parallel_size", p.expert, "num_moe_experts",
                          m.spec().num_moe_experts, divisors(m.spec().num_moe_experts));
    }
    const int per_stage = job.cluster.gpus / p.pipeline;
    if (per_stage % (job.expert_tensor() * p.expert) != 0) {
      return make_error(ErrorCode::kInvalidInput,
                        "expert_tensor_parallel_size x expert_model_parallel_size = " +
                            to_string(job.expert_tensor() * p.expert) +
                            " does not divide the GPUs of one pipeline stage (" +
                            to_string(per_stage) + ")",
                        "parallelism.expert_model_parallel_size");
    }
  } else if (p.expert != 1 && warnings) {
    warnings->push_back("expert_model_parallel_size is ignored: the model has no experts");
  }
  if (warnings) {
    if (p.sequence_parallel && p.tensor == 1) {
      warnings->push_back("sequence_parallel has no effect with tensor_model_parallel_size 1");
    }
    if (p.virtual_pipeline > 1 && job.micro_batches() % p.pipeline != 0) {
      warnings->push_back("interleaved pipeline: micro-batches per step (" +
                          to_string(job.micro_batches()) +
                          ") is not a multiple of pipeline_model_parallel_size; older Megatron "
                          "versions reject this");
    }
    if (p.tensor > job.cluster.scale_up_domain) {
      warnings->push_back("tensor_model_parallel_size " + to_string(p.tensor) +
                          " spans more than one NVLink domain (" +
                          to_string(job.cluster.scale_up_domain) +
                          " GPUs): TP traffic crosses the slower network");
    }
    if (job.micro_batches() < p.pipeline && p.pipeline > 1) {
      warnings->push_back("fewer micro-batches (" + to_string(job.micro_batches()) +
                          ") than pipeline stages (" + to_string(p.pipeline) +
                          "): the pipeline bubble dominates");
    }
  }
  return {};
}

void apply_software(const catalog::SoftwareEra& era, Parallelism& p) {
  p.attention = era.flash_attention ? AttentionKernel::kFlash : AttentionKernel::kUnfused;
  p.sharding = era.distributed_optimizer ? OptimizerSharding::kZero1 : OptimizerSharding::kNone;
  p.overlap_grad_reduce = era.overlap_grad_reduce;
  p.overlap_param_gather = era.overlap_param_gather;
  p.tp_comm_overlap = era.tp_comm_overlap;
  p.sequence_parallel = era.sequence_parallel && p.tensor > 1;
}

}  // namespace aicost::workload
