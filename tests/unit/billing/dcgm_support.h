// What the dcgm-exporter reader tests (dcgm_test.cc, dcgm_text_test.cc) share: the fixtures'
// paths and a sink that keeps every sample and issue.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "aicost/billing/reader.h"
#include "ledger_test_support.h"

namespace aicost::billing::dcgm_testing {

using ledger::GpuMetric;
using ledger::GpuSample;
using ledger::RowIssue;

inline const std::string kDatadogCsv =
    aicost::testing::samples_dir() + "datadog-dcgm-fixture/dcgm_exporter_metrics_fixture.csv";
inline const std::string kScrape = std::string(AICOST_SOURCE_DIR) + "/tests/data/dcgm/scrape.prom";
constexpr double kMiB = 1048576.0;

struct Collected {
  std::vector<GpuSample> samples;
  std::vector<RowIssue> issues;
  ReadSummary summary;
  Sink sink() {
    Sink s;
    s.sample = [this](GpuSample&& g) {
      samples.push_back(std::move(g));
      return core::Status{};
    };
    s.issue = [this](RowIssue&& i) { issues.push_back(std::move(i)); };
    return s;
  }
  const RowIssue* issue_at(std::int64_t line) const {
    for (const auto& i : issues)
      if (i.line == line) return &i;
    return nullptr;
  }
  std::int64_t errors() const {
    std::int64_t n = 0;
    for (const auto& i : issues) n += i.severity == RowIssue::Severity::kError;
    return n;
  }
  const GpuSample* find(GpuMetric m, std::string_view gpu) const {
    for (const auto& s : samples)
      if (s.metric == m && s.gpu == gpu) return &s;
    return nullptr;
  }
};

inline Collected read(const std::string& path, Format f = Format::kAuto) {
  Collected c;
  auto s = read_file(path, f, c.sink());
  EXPECT_TRUE(s) << (s ? "" : s.error().what());
  if (s) c.summary = *s;
  return c;
}

inline Collected read_string(std::string_view text, Format f) {
  Collected c;
  auto s = read_text(text, "test", f, c.sink());
  EXPECT_TRUE(s) << (s ? "" : s.error().what());
  if (s) c.summary = *s;
  return c;
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline ledger::UnixSeconds mtime(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_mtime : -1;
}

}  // namespace aicost::billing::dcgm_testing
