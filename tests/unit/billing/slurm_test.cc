// Slurm accounting (sacct --parsable2) into GPU usage rows (src/billing/slurm.cc): GPU-hours =
// GPUs of AllocTRES x Elapsed, job steps never counted twice, bad rows as issues with their line
// and column.
#include <gtest/gtest.h>

#include <string>

#include "aicost/billing/reader.h"
#include "collected.h"
#include "slurm.h"

namespace aicost::billing {
namespace {

const std::string kHeader =
    "JobID|JobName|User|Account|Partition|Start|End|Elapsed|AllocTRES|State\n";

std::string tag(const ledger::Charge& c, const std::string& key) {
  for (const auto& t : c.tags)
    if (t.key == key) return t.value;
  return "(none)";
}

TEST(SlurmReader, DetectedFromItsHeader) {
  EXPECT_EQ(detect_format(kHeader), Format::kSlurm);
  EXPECT_EQ(detect_format("JobIDRaw|Start|ElapsedRaw|AllocTRES|\n"), Format::kSlurm);  // --parsable
  EXPECT_EQ(detect_format("MyJobID|AllocTRESx\n"), Format::kAuto);
}

// A job's steps (.batch, .extern, .0) carry its GPUs in their own AllocTRES; only the job's row
// counts: 8 GPUs x 2 h = 16 GPU-hours, not 64.
TEST(SlurmReader, JobStepsAreNotCountedTwice) {
  const std::string tres = "billing=64,cpu=64,gres/gpu:h100=8,gres/gpu=8,mem=1000G,node=1";
  const auto c = collect(
      kHeader + "101|train|ana|llm|h100|2025-06-02T08:00:00|2025-06-02T10:00:00|02:00:00|" + tres +
          "|COMPLETED\n"
          "101.batch|batch||llm||2025-06-02T08:00:00|2025-06-02T10:00:00|02:00:00|" +
          tres +
          "|COMPLETED\n"
          "101.extern|extern||llm||2025-06-02T08:00:00|2025-06-02T10:00:00|02:00:00|" +
          tres +
          "|COMPLETED\n"
          "101.0|python||llm||2025-06-02T08:00:00|2025-06-02T10:00:00|02:00:00|" +
          tres + "|COMPLETED\n",
      Format::kSlurm);
  ASSERT_EQ(c.charges.size(), 1u) << c.errors();
  EXPECT_DOUBLE_EQ(c.charges[0].gpu_hours, 16.0);
  EXPECT_EQ(c.summary.records, 4);
  EXPECT_EQ(c.summary.loaded, 1);
  EXPECT_EQ(c.summary.rejected, 0);
  EXPECT_TRUE(c.issues.empty());
}

TEST(SlurmReader, TagsAndFieldsOfAJob) {
  const auto c =
      collect(kHeader +
                  "101|train|ana|llm|h100|2025-06-02T08:00:00|2025-06-02T10:00:00|02:00:00|"
                  "cpu=64,gres/gpu:h100=8,gres/gpu=8,node=1|COMPLETED\n",
              Format::kSlurm);
  ASSERT_EQ(c.charges.size(), 1u);
  const auto& g = c.charges[0];
  EXPECT_EQ(tag(g, "user"), "ana");
  EXPECT_EQ(tag(g, "account"), "llm");
  EXPECT_EQ(tag(g, "partition"), "h100");
  EXPECT_EQ(tag(g, "job"), "101");
  EXPECT_EQ(tag(g, "gpu_type"), "h100");
  EXPECT_EQ(g.sku_id, "h100");
  EXPECT_EQ(g.sub_account_id, "llm");
  EXPECT_EQ(g.resource_id, "101");
  EXPECT_EQ(g.resource_name, "train");
  EXPECT_EQ(g.provider, "Slurm");
  EXPECT_EQ(g.currency, "");              // unpriced until a rate card prices it
  EXPECT_EQ(g.period_start, 1748851200);  // 2025-06-02T08:00:00Z
  EXPECT_EQ(g.period_end, 1748851200 + 7200);
  EXPECT_EQ(g.consumed_unit, "GPU-Hours");
  ASSERT_TRUE(g.consumed_quantity);
  EXPECT_DOUBLE_EQ(*g.consumed_quantity, 16.0);
}

// gres/gpu=N is the total; typed entries split it; what no type names stays untyped.
TEST(SlurmReader, GpuCountsAndTypesFromGres) {
  const std::string row = "|j|u|a|p|2025-06-01T00:00:00|2025-06-01T01:00:00|01:00:00|";
  const auto c = collect(
      kHeader + "1" + row + "cpu=8,gres/gpu=3,gres/gpu:a100=1,gres/gpu:a40=2|COMPLETED\n" + "2" +
          row + "cpu=8,gres/gpu=4,gres/gpu:a100=2|COMPLETED\n" + "3" + row +
          "cpu=8,gres/gpu:a100_1g.5gb=7|COMPLETED\n" + "4" + row +
          "cpu=8,gres/gpu=2,gres/gpumem=80G|COMPLETED\n" + "5" + row + "cpu=8,mem=10G|COMPLETED\n",
      Format::kSlurm);
  ASSERT_EQ(c.charges.size(), 6u) << c.errors();
  const std::vector<std::pair<std::string, double>> want = {
      {"a100", 1}, {"a40", 2}, {"a100", 2}, {"", 2}, {"a100_1g.5gb", 7}, {"", 2}};
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(c.charges[i].sku_id, want[i].first) << i;
    EXPECT_DOUBLE_EQ(c.charges[i].gpu_hours, want[i].second) << i;
  }
  EXPECT_EQ(tag(c.charges[3], "gpu_type"), "(none)");
  EXPECT_TRUE(c.issues.empty());  // the CPU job (5) is skipped, not an issue
}

// Elapsed as [D-]HH:MM:SS; ElapsedRaw in seconds; End - Start when neither is there; a running
// job (End Unknown) ends at Start + Elapsed.
TEST(SlurmReader, DurationsInEveryForm) {
  const auto a =
      collect(kHeader + "1|j|u|a|p|2025-06-01T00:00:00|Unknown|1-02:03:04|gres/gpu=1|RUNNING\n",
              Format::kSlurm);
  ASSERT_EQ(a.charges.size(), 2u) << a.errors();  // two UTC days
  EXPECT_DOUBLE_EQ(a.charges[0].gpu_hours + a.charges[1].gpu_hours,
                   (26 * 3600 + 3 * 60 + 4) / 3600.0);
  EXPECT_EQ(a.charges[1].period_end, a.charges[0].period_start + 26 * 3600 + 184);
  const auto b =
      collect("JobIDRaw|Start|ElapsedRaw|AllocTRES\n7|2025-06-01T00:00:00|5400|gres/gpu=4\n",
              Format::kSlurm);
  ASSERT_EQ(b.charges.size(), 1u) << b.errors();
  EXPECT_DOUBLE_EQ(b.charges[0].gpu_hours, 6.0);
  const auto d =
      collect("JobID|Start|End|AllocTRES\n7|2025-06-01T00:00:00|2025-06-01T00:45:00|gres/gpu=4\n",
              Format::kSlurm);
  ASSERT_EQ(d.charges.size(), 1u) << d.errors();
  EXPECT_DOUBLE_EQ(d.charges[0].gpu_hours, 3.0);
  const auto e = collect("JobID|Start|Elapsed|AllocTRES\n7|2025-06-01T00:00:00|45:30|gres/gpu=2\n",
                         Format::kSlurm);
  ASSERT_EQ(e.charges.size(), 1u) << e.errors();
  EXPECT_DOUBLE_EQ(e.charges[0].gpu_hours, 2 * 45.5 / 60);
}

// A job is spent on the UTC days it ran: 4 GPUs from 22:00 to 02:30 the next day are 8 GPU-hours
// on the first day and 10 on the second, 18 in all.
TEST(SlurmReader, AJobIsSplitAtEveryUtcMidnight) {
  const auto c = collect(
      kHeader + "1|j|u|a|p|2025-06-01T22:00:00|2025-06-02T02:30:00|04:30:00|gres/gpu=4|COMPLETED\n",
      Format::kSlurm);
  ASSERT_EQ(c.charges.size(), 2u) << c.errors();
  EXPECT_DOUBLE_EQ(c.charges[0].gpu_hours, 8.0);
  EXPECT_DOUBLE_EQ(c.charges[1].gpu_hours, 10.0);
  EXPECT_EQ(c.charges[0].period_end, c.charges[1].period_start);
  EXPECT_EQ(ledger::day_text(ledger::day_of(c.charges[1].period_start)), "2025-06-02");
  EXPECT_EQ(c.charges[1].period_start % 86400, 0);
  EXPECT_EQ(c.charges[0].line, 2);
  EXPECT_EQ(c.charges[1].line, 2);
}

// Jobs that never ran (pending, cancelled before start) have no usage and no issue.
TEST(SlurmReader, JobsThatNeverStartedAreSkipped) {
  const auto c =
      collect(kHeader + "9|j|u|a|p|Unknown|Unknown|00:00:00|billing=1,cpu=1,gres/gpu=8|PENDING\n" +
                  "10|j|u|a|p|None|2025-06-01T00:00:00|00:00:00||CANCELLED by 0\n",
              Format::kSlurm);
  EXPECT_TRUE(c.charges.empty());
  EXPECT_TRUE(c.issues.empty());
  EXPECT_EQ(c.summary.rejected, 0);
}

TEST(SlurmReader, BadRowsAreIssuesWithLineAndColumn) {
  const auto c =
      collect(kHeader +
                  "1|j|u|a|p|2025-13-01T00:00:00|Unknown|01:00:00|gres/gpu=1|RUNNING\n"    // line 2
                  "2|j|u|a|p|2025-06-01T00:00:00|Unknown|01:00:00|gres/gpu=two|RUNNING\n"  // line 3
                  "3|j|u|a|p|2025-06-01T00:00:00|Unknown|1h|gres/gpu=1|RUNNING\n"          // line 4
                  "4|j|u|a|p|2025-06-01T00:00:00|Unknown|01:00:00|gres/gpu=1\n"            // line 5
                  "5|j|u|a|p|2025-06-01T00:00:00|Unknown|01:00:00|gres/gpu=1|RUNNING\n",   // line 6
              Format::kSlurm);
  ASSERT_EQ(c.charges.size(), 1u);
  EXPECT_EQ(c.charges[0].line, 6);
  EXPECT_EQ(c.summary.rejected, 4);
  std::vector<std::pair<std::int64_t, std::string>> where;
  for (const auto& i : c.issues) where.emplace_back(i.line, i.column);
  const std::vector<std::pair<std::int64_t, std::string>> want = {
      {2, "Start"}, {3, "AllocTRES"}, {4, "Elapsed"}, {5, ""}};
  EXPECT_EQ(where, want) << c.errors();
  EXPECT_TRUE(c.has_issue("AllocTRES", "'gres/gpu=two' does not give a whole number of GPUs"));
  EXPECT_TRUE(c.has_issue("", "the line has 9 fields, the header 10"));
}

// A duration past any real job is a corrupt cell, refused on its line, never an overflow: 930
// quadrillion days (the fuzzer's find), ten years and a day as Elapsed, and INT64_MAX seconds as
// ElapsedRaw. Ten years to the second still loads.
TEST(SlurmReader, RefusesDurationsLongerThanTenYears) {
  const auto c = collect(
      kHeader +
          "1|j|u|a|p|2025-06-01T00:00:00|Unknown|930000000000000003-00:00:00|gres/gpu=1|RUNNING\n"
          "2|j|u|a|p|2025-06-01T00:00:00|Unknown|3653-00:00:01|gres/gpu=1|RUNNING\n"
          "3|j|u|a|p|2025-06-01T00:00:00|Unknown|99999999999999:00:00|gres/gpu=1|RUNNING\n",
      Format::kSlurm);
  EXPECT_TRUE(c.charges.empty());
  EXPECT_EQ(c.summary.rejected, 3);
  EXPECT_TRUE(c.has_issue("Elapsed", "is not a duration as [D-]HH:MM:SS")) << c.errors();
  EXPECT_TRUE(c.has_issue("Elapsed", "the job would have run for over ten years; check the cell"))
      << c.errors();
  const auto raw = collect(
      "JobIDRaw|Start|ElapsedRaw|AllocTRES\n7|2025-06-01T00:00:00|9223372036854775807|gres/gpu=4\n",
      Format::kSlurm);
  EXPECT_TRUE(raw.charges.empty());
  EXPECT_TRUE(raw.has_issue("ElapsedRaw", "over ten years")) << raw.errors();
  const auto ok =
      collect("JobIDRaw|Start|ElapsedRaw|AllocTRES\n7|2025-06-01T00:00:00|315619200|gres/gpu=1\n",
              Format::kSlurm);
  EXPECT_EQ(ok.summary.rejected, 0) << ok.errors();
  double hours = 0;
  for (const auto& ch : ok.charges) hours += ch.gpu_hours;
  EXPECT_DOUBLE_EQ(hours, 3653.0 * 24);
}

TEST(SlurmReader, RefusesOutputWithoutTheColumnsItNeeds) {
  EXPECT_NE(refusal("JobID|User|Start|Elapsed\n1|u|2025-06-01T00:00:00|01:00:00\n", Format::kSlurm)
                .find("no AllocTRES column; run sacct --parsable2"),
            std::string::npos);
  EXPECT_NE(refusal("JobID|Start|AllocTRES\n", Format::kSlurm).find("no Elapsed (or End) column"),
            std::string::npos);
  EXPECT_NE(refusal("", Format::kSlurm).find("empty"), std::string::npos);
}

}  // namespace
}  // namespace aicost::billing

namespace aicost::billing {
namespace {

// With NodeList, a job's GPUs are split over its nodes, and each row's resource id ends in the
// node's name: the host dcgm-exporter's telemetry names.
TEST(SlurmReader, NodeListSplitsAJobOverItsNodes) {
  const auto c = collect(
      "JobID|Start|Elapsed|AllocTRES|NodeList\n"
      "5|2025-06-01T00:00:00|02:00:00|gres/gpu:h100=16,gres/gpu=16|gpu-h[07-08]\n"
      "6|2025-06-01T00:00:00|01:00:00|gres/gpu=1|None assigned\n"
      "7|2025-06-01T00:00:00|01:00:00|gres/gpu=1|gpu-[3\n",
      Format::kSlurm);
  ASSERT_EQ(c.charges.size(), 3u) << c.errors();
  EXPECT_EQ(c.charges[0].resource_id, "5/gpu-h07");
  EXPECT_EQ(c.charges[1].resource_id, "5/gpu-h08");
  EXPECT_DOUBLE_EQ(c.charges[0].gpu_hours, 16.0);  // 8 of the 16 GPUs x 2 h
  EXPECT_DOUBLE_EQ(c.charges[1].gpu_hours, 16.0);
  EXPECT_EQ(tag(c.charges[1], "node"), "gpu-h08");
  EXPECT_EQ(c.charges[2].resource_id, "6");
  EXPECT_TRUE(c.has_issue("NodeList", "'gpu-[3' is not a Slurm hostlist"));
}

TEST(SlurmHostlist, ExpandsRangesKeepingZeroPadding) {
  using V = std::vector<std::string>;
  EXPECT_EQ(expand_hostlist("gpu-a[01-03,07],login1"),
            (V{"gpu-a01", "gpu-a02", "gpu-a03", "gpu-a07", "login1"}));
  EXPECT_EQ(expand_hostlist("n[8-10]-ib"), (V{"n8-ib", "n9-ib", "n10-ib"}));
  EXPECT_EQ(expand_hostlist("node1"), (V{"node1"}));
  EXPECT_FALSE(expand_hostlist("n[3-1]"));
  EXPECT_FALSE(expand_hostlist("n[1-99999]"));
  EXPECT_FALSE(expand_hostlist("n[1-2][3-4]"));
}

}  // namespace
}  // namespace aicost::billing
