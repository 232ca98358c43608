// Shared helpers for perf unit tests: a classic GPT spec and a job on a catalog GPU.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "aicost/catalog/catalog.h"
#include "aicost/config/catalog_loader.h"
#include "aicost/workload/training_job.h"

namespace aicost::perf::testing {

inline const catalog::Catalog& builtin() {
  static const catalog::Catalog c = [] {
    auto r = config::load_builtin_catalog();
    EXPECT_TRUE(r) << (r ? "" : r.error().what());
    return r ? *r : catalog::Catalog{};
  }();
  return c;
}

// Classic GPT block of Korthikanti et al. 2022: MHA, GeLU, f = 4h, dropout.
inline catalog::ModelSpec classic_gpt(int layers, int hidden, int heads, int vocab = 51200) {
  catalog::ModelSpec s;
  s.id = "classic";
  s.num_layers = layers;
  s.hidden_size = hidden;
  s.num_attention_heads = heads;
  s.ffn_hidden_size = 4 * hidden;
  s.vocab_size = vocab;
  s.activation = catalog::Activation::kGelu;
  s.hidden_dropout = true;
  return s;
}

// A job on `gpus` GPUs of `gpu_id` with the GPU's own link bandwidths and its generation's
// efficiency profile.
inline workload::TrainingJob make_job(const catalog::ModelSpec& spec, const std::string& gpu_id,
                                      int gpus, int seq, int global_batch) {
  workload::TrainingJob j;
  auto m = workload::Model::create(spec);
  EXPECT_TRUE(m) << (m ? "" : m.error().what());
  if (m) j.model = *m;
  auto gpu = builtin().gpu(gpu_id);
  EXPECT_TRUE(gpu) << gpu_id;
  if (gpu) {
    j.cluster.gpu = **gpu;
    j.cluster.gpus_per_node = (*gpu)->gpus_per_node;
    j.cluster.scale_up_domain = (*gpu)->scale_up_domain;
    j.cluster.intra_node_bandwidth = (*gpu)->scale_up_bandwidth;
    j.cluster.inter_node_bandwidth = (*gpu)->scale_out_bandwidth;
    auto eff = builtin().efficiency((*gpu)->generation);
    EXPECT_TRUE(eff) << (*gpu)->generation;
    if (eff) j.efficiency = **eff;
  }
  j.cluster.gpus = gpus;
  j.seq_length = seq;
  j.global_batch = global_batch;
  j.tokens = 1e12;
  return j;
}

}  // namespace aicost::perf::testing
