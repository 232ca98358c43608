// Replicas of the shipped catalog's models, GPUs and efficiency profiles, for the serving tests.
#pragma once

#include <string>

#include "aicost/serving/replica.h"
#include "test_support.h"

namespace aicost::testing {

// A preset of the shipped catalog as a model.
inline workload::Model preset(const std::string& id) {
  auto spec = builtin_catalog().model(id);
  EXPECT_TRUE(spec) << id;
  auto m = workload::Model::create(**spec);
  EXPECT_TRUE(m) << id;
  return *m;
}

// One replica of preset `model` on `gpu` with the `generation`'s efficiency profile; the caller
// sets its layout, precisions and the fixed costs its test turns off.
inline serving::Replica replica_of(const std::string& model, const std::string& gpu,
                                   const std::string& generation) {
  const auto& cat = builtin_catalog();
  serving::Replica r;
  r.model = preset(model);
  r.gpu = **cat.gpu(gpu);
  r.efficiency = **cat.efficiency(generation);
  return r;
}

// DeepSeek-V3 (61 layers, hidden 7,168, 128 heads; MLA with kv_lora_rank 512, query-key dims
// 128 + 64 RoPE, value dim 128) in NVFP4 with an FP8 cache on 8 B200s under attention DP.
inline serving::Replica deepseek_b200() {
  serving::Replica r = replica_of("deepseek-v3", "b200", "blackwell");
  r.tensor_parallel = 8;
  r.weights = catalog::Precision::kFp4;
  r.kv_cache = catalog::Precision::kFp8;
  r.attention_data_parallel = true;
  return r;
}

}  // namespace aicost::testing
