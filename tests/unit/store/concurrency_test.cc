// Several processes on one ledger, as cron jobs and CI pipelines run them: readers during a long
// ingest, a second writer, two ingests of one file at once. Each store here is its own connection,
// as each process has; they run on threads of this test. Runs against every backend.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <future>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "aicost/billing/ingest.h"
#include "aicost/ledger/report.h"
#include "aicost/store/open.h"
#include "backends.h"
#include "ledger_test_support.h"
#include "temp_dir.h"

namespace aicost {
namespace {

using billing::IngestResult;
using std::chrono::milliseconds;

const std::string kFocusSample = testing::samples_dir() + "focus-sample-data/focus_sample.csv";
const ledger::Day kJune = ledger::days_from_civil(2025, 6, 1);

// `n` charges of 30 days of June 2025, 1000 resources, 7 services; each costs 1000 + line % 97.
std::vector<ledger::Charge> charges(std::size_t n, std::int64_t first_line) {
  std::vector<ledger::Charge> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    auto& c = out[i];
    const std::int64_t line = first_line + static_cast<std::int64_t>(i);
    c.line = line;
    c.period_start = static_cast<ledger::UnixSeconds>(kJune + line % 30) * 86400;
    c.period_end = c.period_start + 86400;
    c.currency = "USD";
    c.resource_id = "vm-" + std::to_string(line % 1000);
    c.service_name = "service-" + std::to_string(line % 7);
    c.billed = c.effective = c.list = 1000 + line % 97;
  }
  return out;
}

ledger::SourceFile source(const std::string& name, char fill) {
  return {"/data/" + name, std::string(64, fill), 100, "focus-1.2"};
}

// Until a writer says it waits (on_wait). A guard against hanging, not a measure: a writer that
// never says so fails the test.
template <class T>
::testing::AssertionResult said_it_waits(std::future<T> f) {
  if (f.wait_for(std::chrono::minutes(2)) == std::future_status::ready)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "the second writer never said that it waits";
}

class Concurrency : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "postgresql") {
      auto fresh = testing::fresh_postgres_db();
      if (!fresh.skip_reason.empty()) {
        if (const char* req = std::getenv("AICOST_TEST_PG_REQUIRED");
            req && std::string(req) == "1")
          FAIL() << "PostgreSQL is required here: " << fresh.skip_reason;
        GTEST_SKIP() << fresh.skip_reason;
      }
      db_ = fresh.db;
    } else {
      dir_.emplace("aicost-concurrency");
      db_ = dir_->file("ledger.db");
    }
    ASSERT_TRUE(open({.mode = store::OpenMode::kCreate}));
  }

  // A store of its own on the ledger (a connection, as another process would have).
  std::unique_ptr<ledger::Store> open(store::StoreOptions options = {}) {
    auto s = store::open_store(db_, options);
    EXPECT_TRUE(s) << s.error().what();
    return s ? std::move(*s) : nullptr;
  }

  std::optional<testing::TempDir> dir_;
  std::string db_;
};

// What a cron `ledger report`, `sources` and `check` read: each opens the ledger afresh.
struct Seen {
  std::size_t sources = 0;
  std::map<std::string, ledger::Sums> totals;
};
core::Result<Seen> read_like_a_cron_job(const std::string& db) {
  auto s = store::open_store(db);
  if (!s) return s.error();
  Seen seen;
  auto sources = (*s)->sources();
  if (!sources) return sources.error();
  seen.sources = sources->size();
  auto report = ledger::run_report(**s, {});
  if (!report) return report.error();
  for (const auto& t : report->totals) seen.totals[t.currency] = t.sums;
  // The check's reads: several raw aggregates over a window, and GPU activity.
  ledger::AggregateQuery by_service, by_resource;
  by_service.dims = {ledger::Dimension::kService};
  by_resource.dims = {ledger::Dimension::kResource};
  by_resource.by_day = true;
  for (auto* q : {&by_service, &by_resource}) q->from = kJune, q->to = kJune + 30;
  const std::vector<ledger::AggregateQuery> queries = {by_service, by_resource};
  if (auto each = (*s)->aggregate_each(queries); !each) return each.error();
  if (auto activity = (*s)->gpu_activity(kJune, kJune + 30); !activity) return activity.error();
  return seen;
}

// A reader loop during a long ingest: no read fails or waits for the writer, and every read sees
// the ledger before the ingest or after it, never part of it. On SQLite the ingest outgrows the
// writer's 64 MiB page cache, as a large load does, so that it writes the file before its commit
// (the point where a rollback journal locked readers out: "database is locked" at once).
TEST_P(Concurrency, ReadersNeverWaitForALongIngest) {
  {
    auto w = open();
    ASSERT_TRUE(w);
    ASSERT_TRUE(w->begin_source(source("before.csv", 'b'), {}));
    ASSERT_TRUE(w->add_charges(charges(5000, 0)));
    ASSERT_TRUE(w->commit_source("focus-1.2", 0));
  }
  auto before = read_like_a_cron_job(db_);
  ASSERT_TRUE(before) << before.error().what();
  const std::int64_t spill_rows = GetParam() == "sqlite" ? 1'200'000 : 30'000;

  std::atomic<std::int64_t> written{0};
  std::atomic<int> reads_while_large{0};
  std::atomic<bool> done{false}, reader_failed{false};
  std::vector<Seen> seen;
  std::string failure;
  std::thread reader([&] {
    while (!done) {
      const bool large = written >= spill_rows;
      auto r = read_like_a_cron_job(db_);
      if (!r) {
        failure = r.error().what();
        reader_failed = true;
        return;
      }
      seen.push_back(*r);
      if (large && !done) ++reads_while_large;
    }
  });
  std::thread writer([&] {
    auto w = open();
    if (!w || !w->begin_source(source("long.csv", 'l'), {})) return (void)(done = true);
    constexpr std::size_t kBatch = 8192;
    auto batch = charges(kBatch, 0);
    // Until the transaction is large and readers have read through it (a cap, should they hang).
    while (!reader_failed && (written < spill_rows || reads_while_large < 3) &&
           written < 20 * spill_rows) {
      for (std::size_t i = 0; i < kBatch; ++i)
        batch[i].line = written + static_cast<std::int64_t>(i);
      if (!w->add_charges(batch)) break;
      written += kBatch;
    }
    (void)w->commit_source("focus-1.2", 0);
    done = true;
  });
  writer.join();
  reader.join();
  ASSERT_FALSE(reader_failed) << "a reader failed during the ingest: " << failure;
  EXPECT_GE(reads_while_large.load(), 3);
  auto after = read_like_a_cron_job(db_);
  ASSERT_TRUE(after) << after.error().what();
  EXPECT_EQ(after->sources, 2u);
  // sources() and the report are two reads: the ingest may commit between them, so the totals are
  // matched on their own, by their row count, to the ledger before or after.
  auto rows = [](const Seen& x) {
    std::int64_t n = 0;
    for (const auto& [currency, sums] : x.totals) n += sums.rows;
    return n;
  };
  for (const auto& s : seen) {
    ASSERT_TRUE(s.sources == 1 || s.sources == 2) << s.sources;
    testing::expect_same_totals(s.totals,
                                rows(s) == rows(*before) ? before->totals : after->totals);
  }
}

// A second writer fails at once with a lock timeout of 0, naming the holder; with a short timeout
// it says who it waits for, then fails after the timeout; once the holder is done it writes.
TEST_P(Concurrency, ASecondWriterSaysWhoHoldsTheLedger) {
  auto first = open();
  ASSERT_TRUE(first);
  ASSERT_TRUE(first->begin_source(source("first.csv", 'f'), {}));
  const std::string pid = "pid " + std::to_string(::getpid());

  std::vector<store::LockHolder> told;
  auto tell = [&told](const store::LockHolder& h, milliseconds) { told.push_back(h); };
  auto second = open({.lock_timeout = milliseconds(0), .on_wait = tell});
  ASSERT_TRUE(second);
  auto refused = second->begin_source(source("second.csv", 's'), {});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, core::ErrorCode::kIo);
  EXPECT_NE(refused.error().message.find("another ingest is running (" + pid + ", since "),
            std::string::npos)
      << refused.error().what();
  EXPECT_TRUE(told.empty());  // it did not wait

  auto third = open({.lock_timeout = milliseconds(100), .on_wait = tell});
  ASSERT_TRUE(third);
  auto timed_out = third->begin_source(source("third.csv", 't'), {});
  ASSERT_FALSE(timed_out);
  EXPECT_NE(timed_out.error().message.find("another ingest is running (" + pid), std::string::npos)
      << timed_out.error().what();
  EXPECT_NE(timed_out.error().message.find("still held the ledger after 100ms"), std::string::npos)
      << timed_out.error().what();
  ASSERT_EQ(told.size(), 1u);
  EXPECT_EQ(told[0].pid, ::getpid());
  EXPECT_EQ(told[0].what, "ingest");
  EXPECT_FALSE(told[0].since.empty());

  first->rollback();
  auto after = second->begin_source(source("second.csv", 's'), {});
  ASSERT_TRUE(after) << after.error().what();
  EXPECT_FALSE(*after);
  second->rollback();
}

// A writer that waits (told so once) writes as soon as the holder commits.
TEST_P(Concurrency, AWaitingWriterGoesOnWhenTheHolderCommits) {
  auto first = open();
  ASSERT_TRUE(first);
  ASSERT_TRUE(first->begin_source(source("first.csv", 'f'), {}));
  std::promise<store::LockHolder> waiting;
  store::StoreOptions o;
  o.on_wait = [&waiting](const store::LockHolder& h, milliseconds timeout) {
    EXPECT_EQ(timeout, std::chrono::minutes(10));  // the default
    waiting.set_value(h);
  };
  auto second = open(o);
  ASSERT_TRUE(second);
  auto begun = std::async(std::launch::async, [&] {
    auto r = second->begin_source(source("second.csv", 's'), {});
    if (r && !*r) {
      EXPECT_TRUE(second->add_charges(charges(10, 0)));
      EXPECT_TRUE(second->commit_source("focus-1.2", 0));
    }
    return r;
  });
  auto told = waiting.get_future();
  ASSERT_EQ(told.wait_for(std::chrono::minutes(2)), std::future_status::ready)
      << "the second writer never said it waits";
  EXPECT_EQ(told.get().pid, ::getpid());
  ASSERT_TRUE(first->add_charges(charges(10, 100)));
  ASSERT_TRUE(first->commit_source("focus-1.2", 0));
  auto r = begun.get();
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_FALSE(*r);
  auto sources = first->sources();
  ASSERT_TRUE(sources);
  EXPECT_EQ(sources->size(), 2u);
}

// Two ingests of one file at once: the one that waited for the lock finds the file loaded by the
// other and says "already loaded", as a second ingest after the first would (not a UNIQUE
// constraint failure).
TEST_P(Concurrency, TheSecondOfTwoIngestsOfOneFileFindsItLoaded) {
  const auto sha = billing::sha256_file(kFocusSample);
  ASSERT_TRUE(sha);
  std::promise<void> waiting;
  store::StoreOptions o;
  o.on_wait = [&waiting](const store::LockHolder&, milliseconds) { waiting.set_value(); };
  auto first = open(), second = open(o);
  ASSERT_TRUE(first && second);
  // The first has read nothing it waits for, and holds the lock, as mid-load.
  ASSERT_TRUE(first->begin_source({kFocusSample, *sha, 100, "focus-1.2"}, {}));
  auto ingest = std::async(std::launch::async,
                           [&] { return billing::ingest_file(*second, kFocusSample, {}); });
  ASSERT_TRUE(said_it_waits(waiting.get_future()));
  ASSERT_TRUE(first->add_charges(charges(10, 0)));
  auto loaded = first->commit_source("focus-1.2", 0);
  ASSERT_TRUE(loaded) << loaded.error().what();
  auto r = ingest.get();
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(r->outcome, IngestResult::Outcome::kAlreadyLoaded);
  EXPECT_EQ(r->record.id, loaded->id);
  auto sources = first->sources();
  ASSERT_TRUE(sources);
  EXPECT_EQ(sources->size(), 1u);
}

// The same, free-running: two ingests of the sample started together, each on its own store.
// One loads it, the other finds it loaded, whichever order they come in.
TEST_P(Concurrency, TwoIngestsOfOneFileRacingLoadItOnce) {
  auto a = open(), b = open();
  ASSERT_TRUE(a && b);
  std::promise<void> go;
  auto start = go.get_future().share();
  auto run = [&start](ledger::Store& s) {
    start.wait();
    return billing::ingest_file(s, kFocusSample, {});
  };
  auto ra = std::async(std::launch::async, run, std::ref(*a));
  auto rb = std::async(std::launch::async, run, std::ref(*b));
  go.set_value();
  auto x = ra.get(), y = rb.get();
  ASSERT_TRUE(x) << x.error().what();
  ASSERT_TRUE(y) << y.error().what();
  EXPECT_EQ((x->outcome == IngestResult::Outcome::kLoaded) +
                (y->outcome == IngestResult::Outcome::kLoaded),
            1);
  EXPECT_EQ(x->record.id, y->record.id);
  EXPECT_EQ(x->record.rows, 1000);
  auto sources = a->sources();
  ASSERT_TRUE(sources);
  EXPECT_EQ(sources->size(), 1u);
}

// Another ingest loaded the same path (other bytes) while this one waited: loading beside it would
// count the path twice, so this one fails and says to run again.
TEST_P(Concurrency, APathLoadedWhileWaitingIsNotLoadedTwice) {
  std::promise<void> waiting;
  store::StoreOptions o;
  o.on_wait = [&waiting](const store::LockHolder&, milliseconds) { waiting.set_value(); };
  auto first = open(), second = open(o);
  ASSERT_TRUE(first && second);
  ASSERT_TRUE(first->begin_source(source("export.csv", '1'), {}));
  auto begun = std::async(std::launch::async,
                          [&] { return second->begin_source(source("export.csv", '2'), {}); });
  ASSERT_TRUE(said_it_waits(waiting.get_future()));
  ASSERT_TRUE(first->add_charges(charges(10, 0)));
  ASSERT_TRUE(first->commit_source("focus-1.2", 0));
  auto r = begun.get();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("another ingest loaded this path while this one waited"),
            std::string::npos)
      << r.error().what();
  // Nothing left open: the second store writes again.
  auto again = second->begin_source(source("other.csv", '3'), {});
  ASSERT_TRUE(again) << again.error().what();
  second->rollback();
}

INSTANTIATE_TEST_SUITE_P(Backends, Concurrency, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aicost
