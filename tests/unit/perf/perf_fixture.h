// Shared helpers for perf unit tests: a classic GPT spec and a job on a catalog GPU.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "aicost/catalog/catalog.h"
#include "aicost/config/catalog_loader.h"
#include "aicost/workload/training_job.h"
#include "test_support.h"

namespace aicost::perf::testing {

inline const catalog::Catalog& builtin() { return aicost::testing::builtin_catalog(); }

using aicost::testing::classic_gpt;

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
