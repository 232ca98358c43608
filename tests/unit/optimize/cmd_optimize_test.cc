// `aicost optimize` as a process (apps/aicost/cmd_optimize.cc): nothing is written on error, and
// the emitted plan (training or serving) is written on success.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "temp_dir.h"

namespace aicost {
namespace {

struct Outcome {
  int exit_code = -1;
  std::string err;
};

// Runs the built binary from the source tree, stderr captured to a file in `dir`.
Outcome aicost(const testing::TempDir& dir, const std::string& args) {
  const std::string err = dir.file("stderr.txt");
  const std::string cmd = std::string("cd ") + AICOST_SOURCE_DIR + " && " + AICOST_BINARY + " " +
                          args + " >/dev/null 2>" + err;
  const int status = std::system(cmd.c_str());
  Outcome r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (FILE* f = std::fopen(err.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) r.err.append(buf, n);
    std::fclose(f);
  }
  return r;
}

TEST(CmdOptimize, BadGuardrailsWriteNothing) {
  testing::TempDir dir;
  const std::string g = dir.write("g.yaml", "min_retension:\n  logs: 5y\n");
  const std::string out = dir.file("plan.yaml");
  const Outcome r = aicost(
      dir, "optimize examples/gpt3-175b-a100.yaml --guardrails " + g + " --emit-plan " + out);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("Did you mean 'min_retention'?"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(CmdOptimize, BadPlanWritesNothing) {
  testing::TempDir dir;
  const std::string out = dir.file("plan.yaml");
  const Outcome r = aicost(dir, "optimize tests/plans/bad_unknown_key.yaml --emit-plan " + out);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(CmdOptimize, ServingPlanNoDeploymentServesWritesNothing) {
  testing::TempDir dir;
  const std::string out = dir.file("plan.yaml");
  const Outcome r = aicost(dir, "optimize tests/plans/serving_unreachable.yaml --emit-plan " + out);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no deployment meets the SLA"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(CmdOptimize, EmitsTheCombinedServingPlan) {
  testing::TempDir dir;
  const std::string out = dir.file("plan.yaml");
  const Outcome r =
      aicost(dir, "optimize examples/serving-llama3-70b-chat.yaml --emit-plan " + out);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(out));
}

TEST(CmdOptimize, EmitsTheCombinedPlan) {
  testing::TempDir dir;
  const std::string out = dir.file("plan.yaml");
  const Outcome r =
      aicost(dir, "optimize examples/gpt3-175b-a100.yaml --threads 1 --emit-plan " + out);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace aicost
