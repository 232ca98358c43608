// Reading measured training runs: the source group a row's `source` cell names (cross-validation
// holds a group out whole).
#include "aicost/config/validation_csv.h"

#include <gtest/gtest.h>

#include <set>

#include "temp_dir.h"
#include "test_support.h"

namespace aicost::config {
namespace {

TEST(SourceGroup, IsTheFirstDocumentTheSourceCites) {
  EXPECT_EQ(
      source_group("Narayanan et al. 2021 'Efficient Large-Scale LM Training' (SC21) Table 1; "
                   "same numbers in NVIDIA/Megatron-LM README"),
      "Narayanan et al. 2021");
  EXPECT_EQ(source_group("NVIDIA/dgxc-benchmarking llama3.1/README_70b.md (commit 143b90dd) table"),
            "NVIDIA/dgxc-benchmarking llama3.1/README_70b.md");
  EXPECT_EQ(
      source_group("NVIDIA/TensorRT-LLM docs/source/performance/perf-overview.md @00f37686 (v1.0)"),
      "NVIDIA/TensorRT-LLM docs/source/performance/perf-overview.md");
  EXPECT_EQ(source_group("meta-llama/llama MODEL_CARD.md (Llama 2) + Touvron et al. 2023"),
            "meta-llama/llama MODEL_CARD.md");
  EXPECT_EQ(source_group("NVIDIA NIM LLM benchmarking guide, Performance page"),
            "NVIDIA NIM LLM benchmarking guide");
  EXPECT_EQ(source_group("  plain note  "), "plain note");
  EXPECT_EQ(source_group(""), "(no source)");
  EXPECT_EQ(source_group("'quoted first'"), "'quoted first'");
}

// The dev set's runs come from 18 documents (a paper, a README, a results repository each): the
// groups cross-validation holds out one at a time.
TEST(SourceGroup, TrainingDevSetGroups) {
  auto set =
      load_validation_csv(std::string(AICOST_SOURCE_DIR) + "/data/validation/training-dev.csv",
                          testing::builtin_catalog());
  ASSERT_TRUE(set) << set.error().what();
  std::set<std::string> groups;
  for (const auto& c : set->cases) groups.insert(c.group);
  EXPECT_EQ(groups,
            (std::set<std::string>{
                "Korthikanti et al. 2022", "NVIDIA NeMo Framework user guide",
                "NVIDIA-NeMo/Megatron-Bridge performance summary", "NVIDIA/Megatron-LM README",
                "NVIDIA/NeMo docs/source/performance/performance_summary.md",
                "NVIDIA/dgxc-benchmarking deepseek_v3/pretraining/README.md",
                "NVIDIA/dgxc-benchmarking grok1/README_314b.md",
                "NVIDIA/dgxc-benchmarking llama3.1/README.md",
                "NVIDIA/dgxc-benchmarking llama3.1/README_405b.md",
                "NVIDIA/dgxc-benchmarking llama3.1/README_70b.md",
                "NVIDIA/dgxc-benchmarking llama3.1/README_8b.md",
                "NVIDIA/dgxc-benchmarking nemo_megatron/README_175b.md",
                "NVIDIA/dgxc-benchmarking nemotron/README_15b.md",
                "NVIDIA/dgxc-benchmarking nemotron/README_340b.md", "Narayanan et al. 2021",
                "mlcommons/training_results_v4.1", "mlcommons/training_results_v5.0",
                "mlcommons/training_results_v5.1"}));
}

// A published step time is a measurement on its own: a row with one and no TFLOP/s or MFU cell
// (an MLPerf log gives only step times) is read, and its tokens/s/GPU are GBS x seq / (t x GPUs).
// A row with none of the three is skipped with the reason.
TEST(TrainingCsv, StepTimeAloneIsAMeasurement) {
  testing::TempDir dir;
  const std::string path = dir.write(
      "runs.csv",
      "name,source,layers,hidden,heads,seq_len,global_batch_tokens_or_sequences,gpu_type,num_gpus,"
      "tp,pp,micro_batch,precision,achieved_tflops_per_gpu,mfu_percent,notes\n"
      "gpt step only,Paper A,24,2048,16,2048,64 seq,H100,8,1,1,1,BF16,,,MEASURED step time 2.5 s\n"
      "gpt nothing,Paper A,24,2048,16,2048,64 seq,H100,8,1,1,1,BF16,,,MEASURED but no figure\n");
  auto set = load_validation_csv(path, testing::builtin_catalog());
  ASSERT_TRUE(set) << set.error().what();
  ASSERT_EQ(set->cases.size(), 1u);
  EXPECT_EQ(set->cases[0].name, "gpt step only");
  EXPECT_DOUBLE_EQ(set->cases[0].measured_tokens_per_s_per_gpu, 64.0 * 2048 / 2.5 / 8);
  ASSERT_EQ(set->skipped.size(), 1u);
  EXPECT_EQ(set->skipped[0], "gpt nothing: no step time, throughput or TFLOP/s");
}

// The MoE settings of a run's recipe are read from its notes: "DeepEP" or "HybridEP" selects the
// flex dispatcher, "moe_a2a_overlap" the EP communication overlap; a row naming neither keeps
// Megatron's alltoall dispatcher without overlap.
TEST(TrainingCsv, MoeDispatcherAndOverlapComeFromTheNotes) {
  testing::TempDir dir;
  const std::string head =
      "name,source,seq_len,global_batch_tokens_or_sequences,gpu_type,num_gpus,tp,pp,ep,"
      "micro_batch,precision,achieved_tflops_per_gpu,notes\n";
  const std::string path =
      dir.write("runs.csv",
                head +
                    "Mixtral 8x7B flex,Paper A,4096,64 seq,H100,8,1,1,8,1,BF16,,"
                    "MEASURED step time 2.5 s. DeepEP flex token dispatcher; moe_a2a_overlap=True\n"
                    "Mixtral 8x7B hybrid,Paper A,4096,64 seq,H100,8,1,1,8,1,BF16,,"
                    "MEASURED step time 2.5 s. HybridEP flex token dispatcher\n"
                    "Mixtral 8x7B plain,Paper A,4096,64 seq,H100,8,1,1,8,1,BF16,,"
                    "MEASURED step time 2.5 s. alltoall token dispatcher\n");
  auto set = load_validation_csv(path, testing::builtin_catalog());
  ASSERT_TRUE(set) << set.error().what();
  ASSERT_EQ(set->cases.size(), 3u) << (set->skipped.empty() ? "" : set->skipped[0]);
  using workload::MoeDispatcher;
  EXPECT_EQ(set->cases[0].job.parallel.moe_dispatcher, MoeDispatcher::kFlex);
  EXPECT_TRUE(set->cases[0].job.parallel.ep_comm_overlap);
  EXPECT_EQ(set->cases[1].job.parallel.moe_dispatcher, MoeDispatcher::kFlex);
  EXPECT_FALSE(set->cases[1].job.parallel.ep_comm_overlap);
  EXPECT_EQ(set->cases[2].job.parallel.moe_dispatcher, MoeDispatcher::kAllToAll);
  EXPECT_FALSE(set->cases[2].job.parallel.ep_comm_overlap);
}

}  // namespace
}  // namespace aicost::config
