// The Hopper efficiency profile against what an H200 measured (data/measurements/): the model may
// promise less than the chip's own kernels deliver (end-to-end runs lose more), never more, and its
// decode bandwidth share must sit near the share the weight-streaming GEMMs reach.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "../../../src/perf/layer_time.h"
#include "aicost/workload/training_job.h"
#include "test_support.h"

namespace aicost::perf {
namespace {

struct Row {
  std::string kind, dtype;
  double m, n, k, seconds, tflops, gbytes_per_s;
};

std::vector<Row> measurements() {
  std::ifstream in(std::string(AICOST_SOURCE_DIR) + "/data/measurements/h200-microbench-2026-11-29.csv");
  std::vector<Row> out;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    Row r;
    std::string f[8];
    for (auto& x : f) std::getline(ss, x, ',');
    r = {f[0], f[1], std::stod(f[2]), std::stod(f[3]), std::stod(f[4]), std::stod(f[5]), std::stod(f[6]),
         std::stod(f[7])};
    out.push_back(r);
  }
  return out;
}

workload::TrainingJob h200_job(catalog::Precision p) {
  const auto& cat = testing::builtin_catalog();
  workload::TrainingJob job;
  job.cluster = workload::Cluster::of(**cat.gpu("h200-sxm-141gb"), 8);
  job.efficiency = **cat.efficiency("hopper");
  job.precision = p;
  return job;
}

TEST(MeasuredCeiling, ModelGemmNeverBeatsMeasuredCublasOnH200) {
  const auto rows = measurements();
  ASSERT_GT(rows.size(), 100u);
  const auto bf16 = h200_job(catalog::Precision::kBf16);
  const auto fp8 = h200_job(catalog::Precision::kFp8);
  int checked = 0;
  for (const auto& r : rows) {
    if (r.kind != "gemm") continue;
    const auto& job = r.dtype == "fp8" ? fp8 : bf16;
    const double model_tflops = 2 * r.m * r.n * r.k / gemm_time(job, r.m, r.n, r.k).value() / 1e12;
    std::printf("%-4s m=%6.0f n=%6.0f k=%6.0f  measured %7.1f  model %7.1f TFLOP/s\n", r.dtype.c_str(), r.m, r.n, r.k,
                r.tflops, model_tflops);
    // Held: shapes that fill the GPU, with at least two waves of 128x128 output tiles on the
    // H200's 132 SMs. Smaller ones are bound by weight streaming or by too few tiles (1024^3
    // measured 355 TFLOP/s where the model says 486: the model has no wave-quantisation term
    // yet; training GEMMs are far above this size, serving's decode GEMMs are charged by bytes).
    const double tiles = std::ceil(r.m / 128) * std::ceil(r.n / 128);
    if (tiles < 2 * 132 || r.k < 256) continue;
    EXPECT_LE(model_tflops, r.tflops * 1.05) << r.dtype << " " << r.m << "x" << r.n << "x" << r.k;
    ++checked;
  }
  EXPECT_GT(checked, 30);
}

TEST(MeasuredCeiling, DecodeBandwidthShareMatchesWeightStreaming) {
  // A Llama-3-70B layer at TP 8, batch 1: its four GEMMs stream 213 MB of weights.
  double seconds = 0, bytes = 0;
  for (const auto& r : measurements()) {
    if (r.kind == "gemm" && r.dtype == "bf16" && r.m == 1 && r.k * r.n <= 8192.0 * 7168 &&
        ((r.n == 1280 && r.k == 8192) || (r.n == 8192 && r.k == 1024) || (r.n == 7168 && r.k == 8192) ||
         (r.n == 8192 && r.k == 3584))) {
      seconds += r.seconds;
      bytes += 2 * r.n * r.k;
    }
  }
  ASSERT_GT(seconds, 0);
  const auto& cat = testing::builtin_catalog();
  const double peak = (**cat.gpu("h200-sxm-141gb")).memory_bandwidth.value();
  const double measured_share = bytes / seconds / peak;
  const double model_share = (**cat.efficiency("hopper")).serving_decode_bandwidth;
  std::printf("decode weight streaming: measured %.1f %% of HBM, model %.1f %%\n", 100 * measured_share,
              100 * model_share);
  // The model's share also covers KV reads and the small kernels between GEMMs, so it may sit a
  // little below the GEMMs' own share, never above it.
  EXPECT_LE(model_share, measured_share + 0.03);
  EXPECT_GE(model_share, measured_share - 0.15);
}

TEST(MeasuredCeiling, Fp8SpeedupIsWithinWhatTheChipDelivers) {
  std::map<std::tuple<double, double, double>, std::map<std::string, double>> by_shape;
  for (const auto& r : measurements())
    if (r.kind == "gemm" && r.m >= 4096 && r.n >= 1024 && r.k >= 1024) by_shape[{r.m, r.n, r.k}][r.dtype] = r.tflops;
  const double relative = (**testing::builtin_catalog().efficiency("hopper")).fp8_gemm_relative;
  int checked = 0;
  for (const auto& [shape, t] : by_shape) {
    if (!t.count("fp8") || !t.count("bf16")) continue;
    // fp8 peak is twice bf16; the model's fp8 GEMMs run at fp8_gemm_relative of that.
    EXPECT_LE(2 * relative, t.at("fp8") / t.at("bf16") + 0.05);
    ++checked;
  }
  EXPECT_GE(checked, 4);
}

}  // namespace
}  // namespace aicost::perf
