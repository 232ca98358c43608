// The store's in-memory grouping (src/store/group_fold.h): sums per group, order by values,
// currency (as text) and day, tag sets resolved and filtered, and a table grown well past its first
// size.
#include "group_fold.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <string>

namespace aicost::store {
namespace {

ledger::Sums one(core::WideNanos billed) {
  ledger::Sums s;
  s.billed = billed;
  s.rows = 1;
  return s;
}

// String ids 1-3 read "zeta", "alpha", "USD"; stand-ins come from text().
const std::map<std::int64_t, std::string> kStrings = {{1, "zeta"}, {2, "alpha"}, {3, "USD"}};
core::Status lookup(const std::vector<std::int64_t>& ids, std::vector<std::string>& texts) {
  EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
  for (auto id : ids) texts.push_back(kStrings.at(id));
  return {};
}

TEST(GroupFold, SumsAndSortsByTextThenDayNotIds) {
  ledger::AggregateQuery q;
  q.dims = {ledger::Dimension::kService, ledger::Dimension::kResource};
  q.by_day = true;
  GroupFold fold(q, {});
  const std::int64_t b = fold.text("b-resource"), a = fold.text("a-resource");
  EXPECT_EQ(fold.text("b-resource"), b);  // one stand-in per text
  const std::int64_t cells[][3] = {{1, b, 3}, {2, b, 3}, {2, a, 3}, {1, b, 3}, {2, b, 3}};
  fold.add(20, cells[0], 0, one(1));
  fold.add(10, cells[1], 0, one(2));
  fold.add(10, cells[2], 0, one(4));
  fold.add(20, cells[3], 0, one(8));
  fold.add(30, cells[4], 0, one(16));
  auto rows = fold.rows(lookup);
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 4u);
  // By text (alpha before zeta whatever their ids; a-resource before b-resource), then day: each
  // group's days are one run, so alpha/b-resource's day 30 comes before zeta's day 20.
  EXPECT_EQ((*rows)[0].day, 10);
  EXPECT_EQ((*rows)[0].values, (std::vector<std::string>{"alpha", "a-resource"}));
  EXPECT_EQ((*rows)[0].sums.billed, 4);
  EXPECT_EQ((*rows)[1].day, 10);
  EXPECT_EQ((*rows)[1].values, (std::vector<std::string>{"alpha", "b-resource"}));
  EXPECT_EQ((*rows)[2].day, 30);
  EXPECT_EQ((*rows)[2].values, (std::vector<std::string>{"alpha", "b-resource"}));
  EXPECT_EQ((*rows)[2].sums.billed, 16);
  EXPECT_EQ((*rows)[3].day, 20);
  EXPECT_EQ((*rows)[3].values, (std::vector<std::string>{"zeta", "b-resource"}));
  EXPECT_EQ((*rows)[3].sums.billed, 9);
  EXPECT_EQ((*rows)[3].sums.rows, 2);
  EXPECT_EQ((*rows)[3].currency, "USD");
}

TEST(GroupFold, TagSetsResolveOnceAndFiltersDropThem) {
  ledger::AggregateQuery q;
  q.tags = {{"team", {"owner"}}};
  q.tag_filters = {{{"env", {}}, "prod"}};
  const std::map<std::int64_t, std::vector<ledger::Tag>> tagsets = {
      {7, {{"owner", "vision"}, {"env", "prod"}}},  // team by its alias
      {8, {{"team", "nlp"}, {"env", "dev"}}},       // dropped by the filter
      {9, {{"team", "nlp"}, {"env", "prod"}}}};
  GroupFold fold(q, tagsets);
  const std::int64_t cells[] = {3};
  for (std::int64_t t : {7, 8, 9, 9, 7}) fold.add(0, cells, t, one(t));
  auto rows = fold.rows(lookup);
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].values, (std::vector<std::string>{"nlp"}));
  EXPECT_EQ((*rows)[0].sums.billed, 18);
  EXPECT_EQ((*rows)[1].values, (std::vector<std::string>{"vision"}));
  EXPECT_EQ((*rows)[1].sums.billed, 14);
}

TEST(GroupFold, ManyGroupsKeepTheirSums) {
  ledger::AggregateQuery q;
  q.dims = {ledger::Dimension::kResource};
  GroupFold fold(q, {});
  constexpr int kGroups = 50'000;
  for (int pass = 0; pass < 3; ++pass)
    for (int g = 0; g < kGroups; ++g) {
      const std::int64_t cells[] = {fold.text("r" + std::to_string(g)), 3};
      fold.add(0, cells, 0, one(g));
    }
  auto rows = fold.rows(lookup);
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), static_cast<std::size_t>(kGroups));
  std::int64_t total = 0;
  for (const auto& r : *rows) {
    EXPECT_EQ(r.sums.rows, 3);
    EXPECT_EQ(r.sums.billed, 3 * std::stoll(r.values[0].substr(1)));
    total += r.sums.billed;
  }
  EXPECT_EQ(total, 3LL * kGroups * (kGroups - 1) / 2);
  EXPECT_TRUE(std::is_sorted(rows->begin(), rows->end(),
                             [](const auto& a, const auto& b) { return a.values < b.values; }));
}

// Money is kept in 64 bits while a sum fits and exactly beyond: sums past 2^63 nano-units (9.2e9
// units) of one group, and a value over 64 bits as PostgreSQL's NUMERIC sums may bring one.
TEST(GroupFold, MoneyPast64BitsStaysExact) {
  ledger::AggregateQuery q;
  q.dims = {ledger::Dimension::kService};
  GroupFold fold(q, {});
  constexpr core::WideNanos kMax = std::numeric_limits<std::int64_t>::max();
  const core::WideNanos values[] = {kMax, kMax, 5, -kMax, kMax * 4, -3};
  const std::int64_t cells[] = {1, 3};
  core::WideNanos want = 0, want_list = 0;
  for (const auto v : values) {
    ledger::Sums s = one(0);
    s.billed = v;
    s.effective = -v;
    s.list = v / 2;
    s.contracted = 1;
    fold.add(0, cells, 0, s);
    want += v;
    want_list += v / 2;
  }
  auto rows = fold.rows(lookup);
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 1u);
  const auto& sums = rows->front().sums;
  EXPECT_TRUE(sums.billed == want);
  EXPECT_TRUE(sums.effective == -want);
  EXPECT_TRUE(sums.list == want_list);
  EXPECT_EQ(sums.contracted, 6);
  EXPECT_EQ(sums.rows, 6);
}

// A cost report's order: day, then effective cost descending; equal costs by the values the query
// names, in its order, an empty tag value read as the untagged text; then currency.
TEST(GroupFold, CostOrderRanksByDayThenCostThenTheNamedValuesAsText) {
  ledger::AggregateQuery q;
  q.dims = {ledger::Dimension::kService};
  q.tags = {{"team", {}}};
  q.by_day = true;
  q.order = ledger::RowOrder::kCost;
  q.cost_ties = {1, 0};  // the team first, then the service
  q.untagged_text = "(untagged)";
  const std::map<std::int64_t, std::vector<ledger::Tag>> tagsets = {{5, {{"team", "'quoted"}}},
                                                                    {6, {{"team", "ads"}}}};
  GroupFold fold(q, tagsets);
  auto add = [&](ledger::Day day, std::int64_t service, std::int64_t tagset,
                 core::WideNanos effective) {
    ledger::Sums s = one(1);
    s.effective = effective;
    const std::int64_t cells[] = {service, 3};
    fold.add(day, cells, tagset, s);
  };
  add(20, 1, 6, 9);  // day 20 comes after every group of day 10
  add(10, 1, 6, 4);
  add(10, 2, 6, 4);  // zeta/ads and alpha/ads tie: alpha first
  add(10, 2, 0, 4);  // untagged reads "(untagged)", which sorts after "'quoted" and before "ads"
  add(10, 1, 5, 4);
  add(10, 1, 0, 7);
  std::vector<std::string> got;
  for (int pass = 0; pass < 2; ++pass) {  // each() leaves the groups as they were
    got.clear();
    ASSERT_TRUE(fold.each(lookup, [&](ledger::AggregateRow& row) -> core::Status {
      got.push_back(std::to_string(row.day) + " " + row.values[0] + "/" + row.values[1] + " " +
                    std::to_string(static_cast<long long>(row.sums.effective)));
      return {};
    }));
    EXPECT_EQ(got, (std::vector<std::string>{"10 zeta/ 7", "10 zeta/'quoted 4", "10 alpha/ 4",
                                             "10 alpha/ads 4", "10 zeta/ads 4", "20 zeta/ads 9"}));
  }
}

// Days fold into ISO weeks (from Monday) and months, each group's day the first of its period.
TEST(GroupFold, DaysFoldIntoTheirWeekOrMonth) {
  const ledger::Day sun = ledger::days_from_civil(2024, 9, 1),
                    mon = ledger::days_from_civil(2024, 9, 2),
                    oct = ledger::days_from_civil(2024, 10, 31);
  for (const auto period : {ledger::Period::kWeek, ledger::Period::kMonth}) {
    ledger::AggregateQuery q;
    q.dims = {ledger::Dimension::kService};
    q.by_day = true;
    q.period = period;
    GroupFold fold(q, {});
    const std::int64_t cells[] = {1, 3};
    for (const ledger::Day d : {sun, mon, mon + 6, mon + 7, oct}) fold.add(d, cells, 0, one(1));
    auto rows = fold.rows(lookup);
    ASSERT_TRUE(rows);
    std::vector<std::pair<std::string, std::int64_t>> got;
    for (const auto& r : *rows) got.emplace_back(ledger::day_text(r.day), r.sums.rows);
    if (period == ledger::Period::kWeek)
      EXPECT_EQ(got,
                (std::vector<std::pair<std::string, std::int64_t>>{
                    {"2024-08-26", 1}, {"2024-09-02", 2}, {"2024-09-09", 1}, {"2024-10-28", 1}}));
    else
      EXPECT_EQ(got, (std::vector<std::pair<std::string, std::int64_t>>{{"2024-09-01", 4},
                                                                        {"2024-10-01", 1}}));
  }
}

// Past three dimensions a key keeps the first two and one interned profile of the rest: groups
// that differ in any cell stay apart, and read back with every cell (against a plain map).
TEST(GroupFold, WideKeysKeepEveryCellThroughTheirProfile) {
  ledger::AggregateQuery q;
  q.dims = {ledger::Dimension::kResource, ledger::Dimension::kService, ledger::Dimension::kRegion,
            ledger::Dimension::kSku, ledger::Dimension::kChargeCategory};
  q.tags = {{"team", {}}};
  const std::map<std::int64_t, std::vector<ledger::Tag>> tagsets = {{5, {{"team", "nlp"}}}};
  GroupFold fold(q, tagsets);
  std::map<std::vector<std::string>, std::int64_t> want;  // all values and currency -> billed
  for (int k = 0; k < 3000; ++k) {
    const std::string resource = "r" + std::to_string(k % 97);
    const std::int64_t cells[] = {fold.text(resource), 1 + k % 2,     1 + k % 3,
                                  2 - k % 2,           1 + k % 5 / 4, 3};
    fold.add(0, cells, k % 7 == 0 ? 5 : 0, one(k));
    auto text = [](std::int64_t id) { return kStrings.at(id); };
    want[{resource, text(cells[1]), text(cells[2]), text(cells[3]), text(cells[4]),
          k % 7 == 0 ? "nlp" : "", "USD"}] += k;
  }
  auto rows = fold.rows(lookup);
  ASSERT_TRUE(rows);
  std::map<std::vector<std::string>, std::int64_t> got;
  for (const auto& r : *rows) {
    auto key = r.values;
    key.push_back(r.currency);
    EXPECT_TRUE(got.emplace(key, static_cast<std::int64_t>(r.sums.billed)).second);
  }
  EXPECT_EQ(got, want);
  EXPECT_TRUE(std::is_sorted(rows->begin(), rows->end(),
                             [](const auto& a, const auto& b) { return a.values < b.values; }));
}

// Two folds whose first dims agree, walked together: each value's rows of the first fold, then of
// the second, values in text order.
TEST(GroupFold, InterleavedFoldsTakeTurnsPerSharedValue) {
  ledger::AggregateQuery days, totals;
  days.dims = {ledger::Dimension::kResource};
  days.by_day = true;
  totals.dims = {ledger::Dimension::kResource, ledger::Dimension::kService};
  TextIds texts;
  GroupFold a(days, {}, &texts), b(totals, {}, &texts);
  const std::int64_t x = texts.id("b-res"), y = texts.id("a-res"), z = texts.id("c-res");
  for (const auto r : {x, y}) {
    const std::int64_t cells[] = {r, 3};
    a.add(10, cells, 0, one(1));
    a.add(11, cells, 0, one(1));
  }
  for (const auto r : {z, x}) {
    const std::int64_t cells[] = {r, 1, 3};
    b.add(0, cells, 0, one(1));
  }
  std::vector<std::string> got;
  const GroupFold* both[] = {&a, &b};
  ASSERT_TRUE(each_interleaved(both, 1, lookup,
                               [&](std::size_t fold, ledger::AggregateRow& row) -> core::Status {
                                 got.push_back(std::to_string(fold) + " " + row.values[0] +
                                               (fold == 0 ? " " + std::to_string(row.day) : ""));
                                 return {};
                               }));
  EXPECT_EQ(got, (std::vector<std::string>{"0 a-res 10", "0 a-res 11", "0 b-res 10", "0 b-res 11",
                                           "1 b-res", "1 c-res"}));
}

// Folds sharing their stand-ins rank them from one order of all of them (TextIds::order) when
// they hold a good part of them, else each sorts its own: either way their rows are those of folds
// with stand-ins of their own, string ids that spell a stand-in's text included.
TEST(GroupFold, SharedStandInsRankAsEachFoldAlone) {
  ledger::AggregateQuery q;
  q.dims = {ledger::Dimension::kResource};
  std::vector<std::string> names = {"zeta", "alpha"};  // as string ids 1 and 2 read
  for (int k = 0; k < 200; ++k) names.push_back("r" + std::to_string(k * 7919 % 200));
  TextIds texts;
  GroupFold many(q, {}, &texts), few(q, {}, &texts), many_alone(q, {}), few_alone(q, {});
  for (std::size_t k = 0; k < names.size(); ++k) {
    const std::int64_t shared[] = {texts.id(names[k]), 3}, own[] = {many_alone.text(names[k]), 3};
    many.add(0, shared, 0, one(static_cast<core::WideNanos>(k)));
    many_alone.add(0, own, 0, one(static_cast<core::WideNanos>(k)));
    if (k % 25 == 0) {  // 9 of 202 stand-ins: below a quarter, sorted alone
      const std::int64_t alone[] = {few_alone.text(names[k]), 3};
      few.add(0, shared, 0, one(1));
      few_alone.add(0, alone, 0, one(1));
    }
  }
  for (const std::int64_t id : {1, 2}) {  // the same texts as string ids
    const std::int64_t cells[] = {id, 3};
    for (auto* f : {&many, &many_alone, &few, &few_alone}) f->add(0, cells, 0, one(1000 + id));
  }
  const auto& order = texts.order();
  ASSERT_EQ(order.size(), names.size());
  EXPECT_TRUE(std::is_sorted(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return texts.text(-static_cast<std::int64_t>(a) - 1) <
           texts.text(-static_cast<std::int64_t>(b) - 1);
  }));
  auto listed = [](const GroupFold& f) {
    std::vector<std::pair<std::string, std::int64_t>> out;
    auto rows = f.rows(lookup);
    EXPECT_TRUE(rows);
    for (const auto& r : *rows)
      out.emplace_back(r.values[0], static_cast<std::int64_t>(r.sums.billed));
    return out;
  };
  const auto got_many = listed(many), got_few = listed(few);
  EXPECT_EQ(got_many, listed(many_alone));
  EXPECT_EQ(got_few, listed(few_alone));
  ASSERT_EQ(got_many.size(), 204u);
  EXPECT_EQ(got_many[0].first, "alpha");
  EXPECT_EQ(got_many[1].first, "alpha");
  EXPECT_EQ(got_many.back().first, "zeta");
  EXPECT_EQ(got_few.size(), 11u);
  texts.id("a-late");  // a text added later is ranked too
  ASSERT_EQ(texts.order().size(), names.size() + 1);
  EXPECT_EQ(texts.text(-static_cast<std::int64_t>(texts.order()[0]) - 1), "a-late");
}

}  // namespace
}  // namespace aicost::store
