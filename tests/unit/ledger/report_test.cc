// Attribution logic on hand-built aggregates: periods, tags and aliases, top-N, untagged share.
#include "aicost/ledger/report.h"

#include <gtest/gtest.h>

namespace aicost::ledger {
namespace {

constexpr core::WideNanos kUnit = 1'000'000'000;

AggregateRow row(Day day, std::vector<std::string> values, core::WideNanos effective,
                 std::string currency = "USD") {
  AggregateRow r;
  r.day = day;
  r.values = std::move(values);
  r.currency = std::move(currency);
  r.sums.billed = r.sums.effective = r.sums.list = effective;
  r.sums.rows = 1;
  return r;
}

TEST(LedgerText, CanonicalTagKeys) {
  EXPECT_EQ(canonical_tag_key("Team"), "team");
  EXPECT_EQ(canonical_tag_key("TEAM"), "team");
  EXPECT_EQ(canonical_tag_key("team "), "team");
  EXPECT_EQ(canonical_tag_key("cost-center"), "cost_center");
  EXPECT_EQ(canonical_tag_key("Cost Center"), "cost_center");
  EXPECT_EQ(canonical_tag_key("CostCenter"), "cost_center");
  EXPECT_EQ(canonical_tag_key("costCenter"), "cost_center");
  EXPECT_EQ(canonical_tag_key("GPU"), "gpu");
  EXPECT_EQ(canonical_tag_key("aks-managed-poolName"), "aks_managed_pool_name");
}

TEST(LedgerText, TagsetTextIsOrderIndependentAndEscaped) {
  EXPECT_EQ(tagset_text({{"b", "2"}, {"A", "1"}}), tagset_text({{"a", "1"}, {"B", "2"}}));
  EXPECT_EQ(tagset_text({{"k", "say \"hi\""}}), R"({"k":"say \"hi\""})");
  EXPECT_EQ(tagset_text({}), "");
}

TEST(LedgerText, DaysAndPeriods) {
  EXPECT_EQ(days_from_civil(1970, 1, 1), 0);
  EXPECT_EQ(days_from_civil(2024, 9, 1), 19967);
  EXPECT_EQ(day_text(19967), "2024-09-01");
  EXPECT_EQ(day_of(-1), -1);  // 1969-12-31T23:59:59
  EXPECT_EQ(day_of(86399), 0);
  EXPECT_EQ(period_label(Granularity::kMonth, 19967), "2024-09");
  // ISO weeks: 2024-09-01 is a Sunday, still week 35; 2021-01-03 belongs to 2020-W53.
  EXPECT_EQ(period_label(Granularity::kWeek, days_from_civil(2024, 9, 1)), "2024-W35");
  EXPECT_EQ(period_label(Granularity::kWeek, days_from_civil(2024, 9, 2)), "2024-W36");
  EXPECT_EQ(period_label(Granularity::kWeek, days_from_civil(2021, 1, 3)), "2020-W53");
  EXPECT_EQ(period_label(Granularity::kWeek, days_from_civil(2024, 12, 30)), "2025-W01");
}

TEST(LedgerQuery, GroupKeysParseWithSuggestions) {
  EXPECT_EQ(parse_group_key("service")->dim, Dimension::kService);
  EXPECT_EQ(parse_group_key("ServiceName")->dim, Dimension::kService);
  auto tag = parse_group_key("tag:Team");
  ASSERT_TRUE(tag);
  EXPECT_EQ(tag->tag_key, "team");
  auto bad = parse_group_key("servce");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("Did you mean 'service'"), std::string::npos)
      << bad.error().message;
  EXPECT_FALSE(parse_group_key("tag:"));
}

TEST(LedgerQuery, TagsResolveThroughAliasesAndFilters) {
  ReportRequest r;
  r.by = {{Dimension::kTag, "team"}};
  r.aliases["team"] = {"owner"};
  r.filters.push_back({GroupKey{Dimension::kTag, "env"}, "prod"});
  // aggregate_query adds charge_category for the untagged share, and carries the aliases.
  const auto q = aggregate_query(r);
  ASSERT_EQ(q.dims.size(), 1u);
  EXPECT_EQ(q.dims[0], Dimension::kChargeCategory);
  ASSERT_EQ(q.tags.size(), 1u);
  EXPECT_EQ(q.tags[0], (TagKey{"team", {"owner"}}));
  ASSERT_EQ(q.tag_filters.size(), 1u);
  EXPECT_EQ(resolve_tags({{"team", "ml"}, {"env", "prod"}}, q), std::vector<std::string>{"ml"});
  EXPECT_EQ(resolve_tags({{"owner", "ml"}, {"env", "prod"}}, q), std::vector<std::string>{"ml"});
  // The key itself wins over an alias; an empty value counts as absent.
  EXPECT_EQ(resolve_tags({{"owner", "b"}, {"team", "a"}, {"env", "prod"}}, q),
            std::vector<std::string>{"a"});
  EXPECT_EQ(resolve_tags({{"team", ""}, {"owner", "b"}, {"env", "prod"}}, q),
            std::vector<std::string>{"b"});
  EXPECT_EQ(resolve_tags({{"env", "prod"}}, q), std::vector<std::string>{""});
  EXPECT_EQ(resolve_tags({{"team", "ml"}, {"env", "dev"}}, q), std::nullopt);
  // Two filters on one key are alternatives.
  auto either = q;
  either.tag_filters.push_back({TagKey{"env", {}}, "dev"});
  EXPECT_EQ(resolve_tags({{"team", "ml"}, {"env", "dev"}}, either), std::vector<std::string>{"ml"});
  EXPECT_EQ(resolve_tags({{"team", "ml"}, {"env", "qa"}}, either), std::nullopt);
  EXPECT_EQ(resolve_tags({{"team", "ml"}}, q), std::nullopt);
  // A filter on "" selects the tag sets without the tag.
  ReportRequest untagged;
  untagged.filters.push_back({GroupKey{Dimension::kTag, "team"}, ""});
  const auto u = aggregate_query(untagged);
  EXPECT_TRUE(u.reads_tags());
  EXPECT_TRUE(u.tags.empty());
  EXPECT_EQ(resolve_tags({{"env", "dev"}}, u), std::vector<std::string>{});
  EXPECT_EQ(resolve_tags({{"team", "ml"}}, u), std::nullopt);
}

TEST(LedgerReport, TagValuesAndUntaggedShare) {
  ReportRequest r;
  r.by = {{Dimension::kTag, "team"}};
  // Rows as the store returns them: charge category, then the team ("" = untagged).
  const std::vector<AggregateRow> rows{
      row(0, {"Usage", "ml"}, 3 * kUnit), row(0, {"Usage", "ml"}, 2 * kUnit),
      row(0, {"Usage", ""}, 5 * kUnit), row(0, {"Usage", ""}, 10 * kUnit),
      row(0, {"Credit", ""}, -4 * kUnit)};
  const auto rep = build_report(r, rows);
  ASSERT_EQ(rep.lines.size(), 2u);
  EXPECT_EQ(rep.lines[0].values[0], kUntagged);  // 5 + 10 - 4 = 11 > 5
  EXPECT_EQ(rep.lines[0].sums.effective, 11 * kUnit);
  EXPECT_EQ(rep.lines[1].values[0], "ml");
  EXPECT_EQ(rep.lines[1].sums.effective, 5 * kUnit);
  ASSERT_EQ(rep.untagged.size(), 1u);
  // Taggable spend only: 15 of 20 (the credit is not taggable).
  EXPECT_DOUBLE_EQ(rep.untagged[0].share, 0.75);
  ASSERT_EQ(rep.totals.size(), 1u);
  EXPECT_EQ(rep.totals[0].sums.effective, 16 * kUnit);
}

TEST(LedgerReport, TopNFoldsTheRestIntoOtherAndKeepsTotals) {
  ReportRequest r;
  r.by = {{Dimension::kService, {}}};
  r.granularity = Granularity::kMonth;
  r.top = 2;
  const Day sep = days_from_civil(2024, 9, 3), oct = days_from_civil(2024, 10, 3);
  const std::vector<AggregateRow> rows{row(sep, {"a"}, 1 * kUnit), row(sep, {"b"}, 5 * kUnit),
                                       row(sep, {"c"}, 4 * kUnit), row(oct, {"a"}, 2 * kUnit),
                                       row(oct, {"c"}, 1 * kUnit)};
  const auto rep = build_report(r, rows);
  // b (5) and c (5) are the top two; a folds into (other) in both months.
  ASSERT_EQ(rep.lines.size(), 5u);
  EXPECT_EQ(rep.lines[0].period, "2024-09");
  EXPECT_EQ(rep.lines[0].values[0], "b");
  EXPECT_EQ(rep.lines[1].values[0], "c");
  EXPECT_EQ(rep.lines[2].values[0], kOther);
  EXPECT_EQ(rep.lines[3].period, "2024-10");
  EXPECT_EQ(rep.lines[3].values[0], "c");
  EXPECT_EQ(rep.lines[4].values[0], kOther);
  EXPECT_EQ(rep.lines[4].sums.effective, 2 * kUnit);
  EXPECT_EQ(rep.totals[0].sums.effective, 13 * kUnit);
}

TEST(LedgerReport, CurrenciesNeverMix) {
  ReportRequest r;
  r.by = {{Dimension::kService, {}}};
  const auto rep = build_report(r, {row(0, {"a"}, kUnit, "USD"), row(0, {"a"}, kUnit, "EUR")});
  ASSERT_EQ(rep.lines.size(), 2u);
  ASSERT_EQ(rep.totals.size(), 2u);
  EXPECT_EQ(rep.totals[0].currency, "EUR");
  EXPECT_EQ(rep.totals[1].currency, "USD");
}

TEST(LedgerReport, HostActivityPrefersSmActiveThenEngineThenUtil) {
  const std::vector<HostActivity> a{{"h1", 5, GpuMetric::kGpuUtil, 1.0, 4},
                                    {"h1", 5, GpuMetric::kGrEngineActive, 0.4, 4},
                                    {"h1", 5, GpuMetric::kSmActive, 0.1, 4},
                                    {"h1", 6, GpuMetric::kGpuUtil, 0.9, 4},
                                    {"h2", 5, GpuMetric::kGrEngineActive, 1.7, 4}};
  EXPECT_DOUBLE_EQ(*host_activity(a, "h1", 5), 0.1);
  EXPECT_DOUBLE_EQ(*host_activity(a, "h1", 6), 0.9);
  EXPECT_DOUBLE_EQ(*host_activity(a, "h2", 5), 1.0);  // MIG can read above 1; clamped
  EXPECT_FALSE(host_activity(a, "h1", 7));
  EXPECT_FALSE(host_activity(a, "h3", 5));
}

}  // namespace
}  // namespace aicost::ledger
