// Reading measured training runs: the source group a row's `source` cell names (cross-validation
// holds a group out whole).
#include "aicost/config/validation_csv.h"

#include <gtest/gtest.h>

#include <set>

#include "test_support.h"

namespace aicost::config {
namespace {

TEST(SourceGroup, IsTheFirstDocumentTheSourceCites) {
  EXPECT_EQ(source_group("Narayanan et al. 2021 'Efficient Large-Scale LM Training' (SC21) Table 1; "
                         "same numbers in NVIDIA/Megatron-LM README"),
            "Narayanan et al. 2021");
  EXPECT_EQ(source_group("NVIDIA/dgxc-benchmarking llama3.1/README_70b.md (commit 143b90dd) table"),
            "NVIDIA/dgxc-benchmarking llama3.1/README_70b.md");
  EXPECT_EQ(source_group("NVIDIA/TensorRT-LLM docs/source/performance/perf-overview.md @00f37686 (v1.0)"),
            "NVIDIA/TensorRT-LLM docs/source/performance/perf-overview.md");
  EXPECT_EQ(source_group("meta-llama/llama MODEL_CARD.md (Llama 2) + Touvron et al. 2023"),
            "meta-llama/llama MODEL_CARD.md");
  EXPECT_EQ(source_group("NVIDIA NIM LLM benchmarking guide, Performance page"),
            "NVIDIA NIM LLM benchmarking guide");
  EXPECT_EQ(source_group("  plain note  "), "plain note");
  EXPECT_EQ(source_group(""), "(no source)");
  EXPECT_EQ(source_group("'quoted first'"), "'quoted first'");
}

// The dev set's 38 usable runs come from 7 documents: two papers, the Megatron-LM README and
// four NVIDIA recipe pages.
TEST(SourceGroup, TrainingDevSetHasSevenGroups) {
  auto set = load_validation_csv(std::string(AICOST_SOURCE_DIR) + "/data/validation/training-dev.csv",
                                 testing::builtin_catalog());
  ASSERT_TRUE(set) << set.error().what();
  std::set<std::string> groups;
  for (const auto& c : set->cases) groups.insert(c.group);
  EXPECT_EQ(groups, (std::set<std::string>{
                        "Korthikanti et al. 2022", "NVIDIA/Megatron-LM README", "Narayanan et al. 2021",
                        "NVIDIA/dgxc-benchmarking deepseek_v3/pretraining/README.md",
                        "NVIDIA/dgxc-benchmarking grok1/README_314b.md",
                        "NVIDIA/dgxc-benchmarking llama3.1/README_70b.md",
                        "NVIDIA/dgxc-benchmarking nemo_megatron/README_175b.md"}));
}

}  // namespace
}  // namespace aicost::config
