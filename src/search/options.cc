#include "options.h"

namespace aicost::search {

using workload::divisors;

Dimensions resolve(const workload::TrainingJob& base, const SearchSpace& space) {
  const auto& m = base.model;
  Dimensions d;
  if (!space.tensor.empty()) {
    d.tensor = space.tensor;
  } else {
    for (int t : divisors(m.heads())) {
      if (m.spec().multi_latent_attention || m.kv_heads() % t == 0 || t % m.kv_heads() == 0) {
        d.tensor.push_back(t);
      }
    }
  }
  d.pipeline = space.pipeline.empty() ? divisors(m.layers()) : space.pipeline;
  if (!space.context.empty()) {
    d.context = space.context;
  } else {
    for (int c : divisors(base.seq_length)) {
      if (base.seq_length / c >= 128) d.context.push_back(c);
    }
  }
  if (!space.expert.empty()) {
    d.expert = space.expert;
  } else {
    d.expert = m.is_moe() ? divisors(m.spec().num_moe_experts) : std::vector<int>{1};
  }
  d.micro_batch =
      space.micro_batch.empty() ? std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8} : space.micro_batch;
  using workload::Recompute;
  d.recompute =
      space.recompute.empty()
          ? std::vector<Recompute>{Recompute::kNone, Recompute::kSelective, Recompute::kFull}
          : space.recompute;
  d.sequence_parallel =
      space.sequence_parallel.empty() ? std::vector<bool>{false, true} : space.sequence_parallel;
  using workload::OptimizerSharding;
  d.sharding = space.sharding.empty() ? std::vector<OptimizerSharding>{OptimizerSharding::kNone,
                                                                       OptimizerSharding::kZero1}
                                      : space.sharding;
  return d;
}

bool valid_virtual_pipeline(const workload::TrainingJob& base, int pp, int v) {
  if (v < 1) return false;
  if (v == 1) return true;
  const int layers = base.model.layers();
  return pp > 1 && layers % pp == 0 && (layers / pp) % v == 0;
}

std::vector<int> virtual_pipeline_options(const workload::TrainingJob& base,
                                          const SearchSpace& space, int pp) {
  if (!space.virtual_pipeline.empty()) return space.virtual_pipeline;
  if (pp == 1 || base.model.layers() % pp != 0) return {1};
  return divisors(base.model.layers() / pp);
}

}  // namespace aicost::search
