// `aicost calibrate` end to end below the CLI (config/calibrate.h): the round trip the issue asks
// for (fit on half of a generation's published runs, the other half improves), the overlay it
// writes and how --catalog takes it, and the refusals.
#include "aicost/config/calibrate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "aicost/config/catalog_loader.h"
#include "aicost/config/cross_validation.h"
#include "aicost/config/validation_csv.h"
#include "aicost/core/csv.h"
#include "aicost/perf/estimate.h"
#include "../temp_dir.h"
#include "../test_support.h"

namespace aicost::config {
namespace {

const std::string kDevSet = std::string(AICOST_SOURCE_DIR) + "/data/validation/training-dev.csv";
const std::string kHeader = "name,source,model_params_B,active_params_B,layers,hidden,heads,ffn_hidden,seq_len,"
                            "global_batch_tokens_or_sequences,tokens_trained_B,gpu_type,num_gpus,tp,pp,dp,cp,ep,"
                            "micro_batch,recompute,precision,achieved_tflops_per_gpu,mfu_percent,hfu_percent,"
                            "total_gpu_hours,wall_days,notes\n";

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The rows of `generation` in training-dev.csv that the loader reads, in file order, split
// deterministically: even positions (0, 2, ...) into `fit`, odd ones into `check`; each file gets
// the header and the rows' bytes as they are.
void split_generation(const std::string& generation, const std::string& fit, const std::string& check) {
  auto set = load_validation_csv(kDevSet, testing::builtin_catalog());
  ASSERT_TRUE(set) << set.error().what();
  std::vector<int64_t> lines;
  for (const auto& c : set->cases) {
    if (c.job.cluster.gpu.generation == generation) lines.push_back(c.line);
  }
  std::string header, a, b;
  core::CsvStream stream(kDevSet, [&](const core::CsvRecord& r) -> core::Status {
    if (r.line == 1) header = std::string(r.raw);
    const auto it = std::find(lines.begin(), lines.end(), r.line);
    if (it != lines.end()) ((it - lines.begin()) % 2 == 0 ? a : b) += std::string(r.raw);
    return {};
  });
  ASSERT_TRUE(stream.feed(read(kDevSet)));
  ASSERT_TRUE(stream.finish());
  std::ofstream(fit, std::ios::binary) << header << a;
  std::ofstream(check, std::ios::binary) << header << b;
}

double median_abs_error(const std::vector<perf::Observation>& obs) {
  std::vector<double> e;
  for (const auto& o : obs) e.push_back(std::fabs(o.predict(o.profile) / o.measured - 1));
  std::sort(e.begin(), e.end());
  return e[(e.size() - 1) / 2];
}

// The round trip. Blackwell's shipped gemm_max (70 %) was set from principles, never fitted to
// runs (data/efficiency.yaml: only ampere's and hopper's were), and on the 45 Blackwell rows of
// training-dev.csv the shipped profile is optimistic: mean ln(predicted / measured) = +7.6 %
// (`aicost validate data/validation/training-dev.csv -o json`). A common bias of one sign is what
// a per-generation efficiency fitted on half of the rows removes on the other half, so the fit
// must lower gemm_max[blackwell] and the held-back half's median |error| must fall. Measured at
// this commit: 70 % -> 67 %, median |error| of the other 22 rows 8.9 % -> 7.8 %.
TEST(Calibrate, FitOnHalfOfAGenerationImprovesTheOtherHalf) {
  testing::TempDir dir;
  const auto fit = dir.file("blackwell-fit.csv"), check = dir.file("blackwell-check.csv");
  split_generation("blackwell", fit, check);
  const auto& shipped = testing::builtin_catalog();
  auto run = calibrate_csv(fit, shipped);
  ASSERT_TRUE(run) << run.error().what();
  EXPECT_EQ(run->fit.generations, (std::vector<std::string>{"blackwell"}));
  ASSERT_EQ(run->fit.parameters.size(), 1u);
  const double fitted = run->fit.cv.all.value(0, "blackwell");
  EXPECT_LT(fitted, 0.70);

  const auto overlay = dir.file("my-profile.yaml");
  ASSERT_TRUE(write_overlay(overlay, calibration_overlay(*run, "2026-12-01")));
  // The written keys: the entry's generation and base, the fitted key, source and date; nothing
  // else (every other value comes from the base profile).
  std::vector<std::string> keys;
  std::istringstream lines(read(overlay));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    keys.push_back(line.substr(0, line.find(':')));
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"efficiency", "  - generation", "    base", "    gemm_max",
                                            "    source", "    date"}));

  // --catalog takes it: the Blackwell profile changes in gemm_max only.
  auto cat = load_builtin_catalog();
  ASSERT_TRUE(cat);
  ASSERT_TRUE(add_catalog_file(overlay, *cat));
  const auto* before = *shipped.efficiency("blackwell");
  const auto* after = *cat->efficiency("blackwell");
  EXPECT_NEAR(after->gemm_max, fitted, 1e-12);
  EXPECT_EQ(after->gemm_half_dim, before->gemm_half_dim);
  EXPECT_EQ(after->fp8_gemm_relative, before->fp8_gemm_relative);
  EXPECT_EQ(after->serving_decode_bandwidth, before->serving_decode_bandwidth);
  EXPECT_NE(after->provenance.source.find("aicost calibrate on " + fit), std::string::npos);
  EXPECT_EQ((*cat->efficiency("hopper"))->gemm_max, (*shipped.efficiency("hopper"))->gemm_max);

  // Estimates with the overlaid catalog: the held-back half, through the same loader and step model.
  auto old_rows = load_observations(check, shipped);
  auto new_rows = load_observations(check, *cat);
  ASSERT_TRUE(old_rows && new_rows);
  ASSERT_EQ(old_rows->observations.size(), 22u);
  const double was = median_abs_error(old_rows->observations), now = median_abs_error(new_rows->observations);
  EXPECT_LT(now, was) << "median |error| on the other half: shipped " << was << ", calibrated " << now;
  auto cases = load_validation_csv(check, *cat);
  ASSERT_TRUE(cases);
  auto est = perf::estimate_training(cases->cases.front().job);
  ASSERT_TRUE(est) << est.error().what();
  EXPECT_NEAR(est->tokens_per_s_per_gpu, new_rows->observations.front().predict(*after), 1e-9);
}

TEST(Calibrate, MalformedCsvIsAnErrorAtItsLine) {
  testing::TempDir dir;
  const auto csv = dir.write("runs.csv", kHeader + "\"unterminated,quote\n");
  auto run = calibrate_csv(csv, testing::builtin_catalog());
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error().code, core::ErrorCode::kParse);
  EXPECT_EQ(run.error().context.rfind(csv + ":2", 0), 0u) << run.error().context;
}

TEST(Calibrate, MissingColumnIsAnError) {
  testing::TempDir dir;
  const auto csv = dir.write("runs.csv", "name,gpu_type\nx,H100\n");
  auto run = calibrate_csv(csv, testing::builtin_catalog());
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error().context, csv + ":1");
}

TEST(Calibrate, GpuNotInTheCatalogIsAnErrorThatSaysHowToAddIt) {
  testing::TempDir dir;
  const auto csv = dir.write(
      "runs.csv", kHeader + "my run,me,7,,32,4096,32,11008,4096,1024 seq,,Z100 (our lab),8,1,1,8,,,1,none,bf16,"
                            "400,,,,,MEASURED\n");
  auto run = calibrate_csv(csv, testing::builtin_catalog());
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error().code, core::ErrorCode::kNotFound);
  EXPECT_EQ(run.error().context, csv + ":2:1");
  EXPECT_NE(run.error().message.find("line 2: my run: unknown GPU 'Z100 (our lab)'"), std::string::npos)
      << run.error().message;
  EXPECT_NE(run.error().message.find("--catalog"), std::string::npos);
}

// The same for a serving file, on its third line.
TEST(Calibrate, ServingGpuNotInTheCatalogIsAnErrorAtItsLine) {
  testing::TempDir dir;
  const std::string header = "name,source,model,params_B,gpu_type,num_gpus,tp,precision,framework,input_tokens,"
                             "output_tokens,batch_or_concurrency,scenario,throughput_tokens_per_s,"
                             "throughput_per_gpu,ttft_ms,tpot_ms,e2e_latency_ms,notes\n";
  auto row = [](const std::string& name, const std::string& gpu) {
    return name + ",me,llama3-8b,8," + gpu + ",1,1,BF16,vLLM,128,128,batch 8,offline,9000,,,,,\n";
  };
  const auto csv = dir.write("serve.csv", header + row("ok", "H100-SXM-80GB") + row("z", "Z100"));
  auto run = calibrate_csv(csv, testing::builtin_catalog());
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error().code, core::ErrorCode::kNotFound);
  EXPECT_EQ(run.error().context, csv + ":3:1");
  EXPECT_NE(run.error().message.find("line 3: z: unknown GPU 'Z100'"), std::string::npos) << run.error().message;
}

TEST(Calibrate, UnwritableOutputIsAnErrorAndLeavesNothing) {
  testing::TempDir dir;
  const auto path = dir.file("no-such-folder/my-profile.yaml");
  auto st = write_overlay(path, "efficiency: []\n");
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, core::ErrorCode::kIo);
  EXPECT_EQ(st.error().context, path);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

// A write that succeeds replaces the file whole and leaves no temporary beside it.
TEST(Calibrate, WriteReplacesTheFileWhole) {
  testing::TempDir dir;
  const auto path = dir.write("p.yaml", "old text that is longer than the new\n");
  ASSERT_TRUE(write_overlay(path, "new\n"));
  EXPECT_EQ(read(path), "new\n");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);
}

}  // namespace
}  // namespace aicost::config
