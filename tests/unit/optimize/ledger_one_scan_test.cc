// `aicost optimize --db` reads the charges once (docs/OPTIMIZE.md "Ledger"): the families' usage,
// the hosts' prices and `ledger check`'s waste scan (governance::WasteScan) in one
// Store::aggregate_into, the waste scan's two queries interleaved after the levers' in turn. On the
// two example ledgers, on both backends: each query's rows from the shared read equal its own
// read's, the waste findings equal find_waste's own scan's, and the levers other than the waste
// findings are those of a run without the waste scan.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "aicost/billing/ingest.h"
#include "aicost/governance/waste_scan.h"
#include "aicost/optimize/ledger_levers.h"
#include "optimize_support.h"
#include "store/backends.h"

namespace aicost::optimize {
namespace {

using ledger::Dimension;

struct Example {
  const char* dir;
  std::vector<const char*> files;
  ledger::Day as_of;
};

const Example kExamples[] = {
    {"examples/optimize-ledger/",
     {"focus-gpu-fleet-2025-03-05.csv", "dcgm-dev-pool-2025-04-05.prom"},
     ledger::days_from_civil(2025, 5, 19)},
    {"examples/governance/",
     {"focus-ai-lab-2025-05-06.csv", "dcgm-ai-lab-2025-06-26.prom"},
     ledger::days_from_civil(2025, 6, 28)},
};

// The levers' two queries as ledger_commitment.cc and ledger_levers.cc ask them (their shape is
// what matters here: by day and filtered, by resource).
std::vector<ledger::AggregateQuery> lever_queries(ledger::Day as_of) {
  ledger::AggregateQuery usage;
  usage.dims = {Dimension::kProvider,         Dimension::kSku,
                Dimension::kRegion,           Dimension::kCommitment,
                Dimension::kCommitmentStatus, Dimension::kPricingCategory,
                Dimension::kConsumedUnit};
  usage.by_day = true;
  usage.from = as_of - 60;
  usage.to = as_of;
  usage.filters.push_back({{Dimension::kChargeCategory, {}}, "Usage"});
  ledger::AggregateQuery prices;
  prices.dims = {Dimension::kResource, Dimension::kConsumedUnit, Dimension::kProvider,
                 Dimension::kSku};
  prices.from = as_of - 28;
  prices.to = as_of;
  return {usage, prices};
}

void expect_same_rows(const std::vector<ledger::AggregateRow>& got,
                      const std::vector<ledger::AggregateRow>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("row " + std::to_string(i));
    EXPECT_EQ(got[i].day, want[i].day);
    EXPECT_EQ(got[i].values, want[i].values);
    EXPECT_EQ(got[i].currency, want[i].currency);
    EXPECT_EQ(got[i].sums.effective, want[i].sums.effective);
    EXPECT_EQ(got[i].sums.billed, want[i].sums.billed);
    EXPECT_EQ(got[i].sums.rows, want[i].sums.rows);
    // The same rows summed in the same order: equal to the last bit.
    EXPECT_EQ(got[i].sums.consumed_quantity, want[i].sums.consumed_quantity);
    EXPECT_EQ(got[i].sums.gpu_hours, want[i].sums.gpu_hours);
  }
}

// Each test loops over the examples, a fresh store each.
class OneScanExample : public aicost::testing::BackendTest {
 protected:
  void load(const Example& e) {
    for (const char* f : e.files) {
      auto r = billing::ingest_file(store(), testing::source_path(std::string(e.dir) + f), {});
      ASSERT_TRUE(r) << r.error().what();
    }
  }
};

TEST_P(OneScanExample, SharedReadAnswersEachQueryAsItsOwnRead) {
  for (std::size_t k = 0; k < std::size(kExamples); ++k) {
    SCOPED_TRACE(kExamples[k].dir);
    if (k > 0) {
      // A fresh store per example (the fixture's is the first's).
      fresh_ = aicost::testing::fresh_store(GetParam());
      ASSERT_TRUE(fresh_.store);
    }
    ASSERT_NO_FATAL_FAILURE(load(kExamples[k]));
    const ledger::Day as_of = kExamples[k].as_of;
    const governance::WasteOptions wo;
    governance::WasteScan waste(wo, as_of, {});
    auto qs = lever_queries(as_of);
    const std::size_t own = qs.size();
    qs.insert(qs.end(), waste.queries().begin(), waste.queries().end());
    std::vector<std::vector<ledger::AggregateRow>> rows(own);
    std::vector<std::size_t> order;  // the queries of the rows, as handed out
    ASSERT_TRUE(store().aggregate_into(
        qs,
        [&](std::size_t q, ledger::AggregateRow& row) -> core::Status {
          order.push_back(q);
          if (q < own)
            rows[q].push_back(row);
          else
            waste.add(q - own, row);
          return {};
        },
        governance::WasteScan::kInterleave, own));
    // The levers' rows come first, query by query; the waste scan's after them.
    ASSERT_FALSE(order.empty());
    EXPECT_TRUE(std::is_sorted(
        order.begin(),
        order.begin() + static_cast<std::ptrdiff_t>(rows[0].size() + rows[1].size())));
    EXPECT_TRUE(
        std::all_of(order.begin() + static_cast<std::ptrdiff_t>(rows[0].size() + rows[1].size()),
                    order.end(), [own](std::size_t q) { return q >= own; }));
    for (std::size_t q = 0; q < own; ++q) {
      SCOPED_TRACE("query " + std::to_string(q));
      auto alone = store().aggregate(qs[q]);
      ASSERT_TRUE(alone) << alone.error().what();
      ASSERT_FALSE(alone->empty());  // the example reaches the query
      expect_same_rows(rows[q], *alone);
    }
    auto shared = waste.finish(store(), nullptr);
    ASSERT_TRUE(shared) << shared.error().what();
    auto alone = governance::find_waste(store(), wo, as_of, {});
    ASSERT_TRUE(alone) << alone.error().what();
    ASSERT_FALSE(alone->empty());
    ASSERT_EQ(shared->size(), alone->size());
    for (std::size_t i = 0; i < alone->size(); ++i) {
      SCOPED_TRACE("finding " + std::to_string(i) + ": " + (*alone)[i].message);
      EXPECT_EQ((*shared)[i].kind, (*alone)[i].kind);
      EXPECT_EQ((*shared)[i].subject, (*alone)[i].subject);
      EXPECT_EQ((*shared)[i].currency, (*alone)[i].currency);
      EXPECT_EQ((*shared)[i].monthly_saving, (*alone)[i].monthly_saving);
      EXPECT_EQ((*shared)[i].message, (*alone)[i].message);
      EXPECT_EQ((*shared)[i].evidence, (*alone)[i].evidence);
      EXPECT_EQ((*shared)[i].covered_by, (*alone)[i].covered_by);
    }
  }
}

TEST_P(OneScanExample, TheWasteScanInTheReadChangesNoOtherLever) {
  for (std::size_t k = 0; k < std::size(kExamples); ++k) {
    SCOPED_TRACE(kExamples[k].dir);
    if (k > 0) {
      fresh_ = aicost::testing::fresh_store(GetParam());
      ASSERT_TRUE(fresh_.store);
    }
    ASSERT_NO_FATAL_FAILURE(load(kExamples[k]));
    LedgerOptions o;
    o.as_of = kExamples[k].as_of;
    auto with = optimize_ledger(store(), testing::builtin_catalog(), o);
    ASSERT_TRUE(with) << with.error().what();
    o.waste_findings = false;
    auto without = optimize_ledger(store(), testing::builtin_catalog(), o);
    ASSERT_TRUE(without) << without.error().what();
    std::vector<const LeverResult*> others;
    std::size_t waste = 0;
    for (const auto& l : with->levers)
      if (l.id.rfind("waste-", 0) == 0)
        ++waste;
      else
        others.push_back(&l);
    EXPECT_GT(waste, 0u);  // the example has findings
    ASSERT_EQ(others.size(), without->levers.size());
    for (std::size_t i = 0; i < others.size(); ++i) {
      const auto& a = *others[i];
      const auto& b = without->levers[i];
      SCOPED_TRACE(b.id + " " + b.subject);
      EXPECT_EQ(a.id, b.id);
      EXPECT_EQ(a.subject, b.subject);
      EXPECT_EQ(a.status, b.status);
      EXPECT_EQ(a.saving_usd, b.saving_usd);
      EXPECT_EQ(a.why, b.why);
      EXPECT_EQ(a.notes, b.notes);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, OneScanExample, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aicost::optimize
