// The store's in-memory grouping (src/store/group_fold.h): sums per group, order by values,
// currency (as text) and day, tag sets resolved and filtered, and a table grown well past its first size.
#include "group_fold.h"

#include <gtest/gtest.h>

#include <algorithm>
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
      {8, {{"team", "nlp"}, {"env", "dev"}}},        // dropped by the filter
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

// Two folds over two halves of the rows, each with its own stand-ins, absorbed into a third: the
// same rows as one fold over them all (a scan read by two threads).
TEST(GroupFold, AbsorbingAFoldOfOtherRowsEqualsFoldingThemAll) {
  ledger::AggregateQuery q;
  q.dims = {ledger::Dimension::kService, ledger::Dimension::kResource};
  q.by_day = true;
  q.tags = {{"team", {}}};
  const std::map<std::int64_t, std::vector<ledger::Tag>> tagsets = {{5, {{"team", "nlp"}}}, {6, {{"team", "ads"}}}};
  TextIds first_texts, second_texts, texts;
  GroupFold all(q, tagsets), first(q, tagsets, &first_texts), second(q, tagsets, &second_texts);
  // Row k: service id 1 or 2, resource "r<k % 7>", day 10 + k % 3, tag set 0, 5 or 6.
  auto add = [&](GroupFold& fold, int k) {
    const std::int64_t cells[] = {1 + k % 2, fold.text("r" + std::to_string(k % 7)), 3};
    ledger::Sums s = one(k);
    s.gpu_hours = 0.5 * k;
    s.first_day = s.last_day = 10 + k % 3;
    fold.add(10 + k % 3, cells, k % 3 == 0 ? 0 : 4 + k % 3, s);
  };
  for (int k = 0; k < 60; ++k) add(all, k);
  // The second half meets its resources in another order, so its stand-ins are numbered differently.
  for (int k = 0; k < 30; ++k) add(first, k);
  for (int k = 59; k >= 30; --k) add(second, k);
  GroupFold merged(q, tagsets, &texts);
  merged.absorb(first, texts.ids_of(first_texts));
  merged.absorb(second, texts.ids_of(second_texts));
  auto want = all.rows(lookup), got = merged.rows(lookup);
  ASSERT_TRUE(want && got);
  ASSERT_EQ(got->size(), want->size());
  for (std::size_t r = 0; r < want->size(); ++r) {
    EXPECT_EQ((*got)[r].day, (*want)[r].day);
    EXPECT_EQ((*got)[r].values, (*want)[r].values);
    EXPECT_EQ((*got)[r].sums.billed, (*want)[r].sums.billed);
    EXPECT_EQ((*got)[r].sums.rows, (*want)[r].sums.rows);
    EXPECT_EQ((*got)[r].sums.gpu_hours, (*want)[r].sums.gpu_hours);  // halves of integers: exact
    EXPECT_EQ((*got)[r].sums.first_day, (*want)[r].sums.first_day);
  }
}

}  // namespace
}  // namespace aicost::store
