#include "sqlite_reads.h"

#include <algorithm>
#include <deque>
#include <optional>
#include <thread>

#include "query_sql.h"
#include "schema.h"
#include "sqlite_file.h"
#include "sqlite_scan.h"
#include "sqlite_stmt.h"

namespace aicost::store {

core::Status sqlite_exec(sqlite3* db, const std::string& path, const std::string& sql) {
  char* msg = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
    std::string m = msg ? msg : "unknown error";
    sqlite3_free(msg);
    return core::make_error(core::ErrorCode::kIo, "SQLite: " + m, path);
  }
  return {};
}

core::Error sqlite_error(sqlite3* db, const std::string& path, const std::string& what) {
  const int code = sqlite3_errcode(db);
  const core::ErrorCode kind = code == SQLITE_FULL || code == SQLITE_IOERR || code == SQLITE_BUSY ||
                                       code == SQLITE_READONLY || code == SQLITE_CANTOPEN
                                   ? core::ErrorCode::kIo
                                   : core::ErrorCode::kInternal;
  return core::make_error(kind, "SQLite failed " + what + ": " + sqlite3_errmsg(db), path);
}

core::Status SqliteReads::exec(const std::string& sql) { return sqlite_exec(db_, path_, sql); }
core::Error SqliteReads::error(const std::string& what) const {
  return sqlite_error(db_, path_, what);
}

core::Result<std::vector<ledger::AggregateRow>> SqliteReads::aggregate(
    const ledger::AggregateQuery& q) {
  auto rows = aggregate_each({&q, 1});
  if (!rows) return rows.error();
  return std::move(rows->front());
}

core::Status SqliteReads::lookup(const std::vector<std::int64_t>& ids,
                                 std::vector<std::string>& texts) {
  // Few ids: one lookup each. Many (a resource name per group): one pass over their range of the
  // table, which is ordered by id.
  const bool range = ids.size() > 256;
  core::Status st;
  Stmt q(db_,
         range ? "SELECT id, value FROM strings WHERE id BETWEEN ? AND ? ORDER BY id"
               : "SELECT id, value FROM strings WHERE id = ?",
         st);
  if (!st) return st;
  texts.reserve(ids.size());
  if (range) {
    q.i64(1, ids.front());
    q.i64(2, ids.back());
    std::size_t k = 0;
    while (k < ids.size() && sqlite3_step(q.get()) == SQLITE_ROW)
      if (sqlite3_column_int64(q.get(), 0) == ids[k]) texts.push_back(column_text(q.get(), 1)), ++k;
  } else {
    for (auto id : ids) {
      sqlite3_reset(q.get());
      q.i64(1, id);
      if (sqlite3_step(q.get()) == SQLITE_ROW) texts.push_back(column_text(q.get(), 1));
    }
  }
  if (texts.size() != ids.size()) return error("reading the texts of string ids");
  return {};
}

bool SqliteReads::scans_together(std::span<const ledger::AggregateQuery> queries) {
  // A query the rollup answers is not read from the raw charges for another's sake: a scan of the
  // rollup costs far less than the extra work on every raw row. A query of GPU rows only reads the
  // raw charges; among others it drops the rows without GPU-hours as they are folded.
  std::size_t rollup = 0;
  for (const auto& q : queries) rollup += from_rollup(q) ? 1 : 0;
  return queries.size() == 1 || rollup == 0 || rollup == queries.size();
}

namespace {

// A read transaction for the life of this object, where the connection is not in one already:
// every statement in it sees one state of the file. In WAL a writer may commit meanwhile (other
// connections opened later see its commit: scan() checks their generation).
class ReadTransaction {
 public:
  explicit ReadTransaction(sqlite3* db)
      : db_(db),
        own_(sqlite3_get_autocommit(db) != 0 &&
             sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr) == SQLITE_OK) {}
  ~ReadTransaction() {
    if (own_) sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
  }
  ReadTransaction(const ReadTransaction&) = delete;
  ReadTransaction& operator=(const ReadTransaction&) = delete;
  bool own() const { return own_; }

 private:
  sqlite3* db_;
  bool own_;
};

// Reads `part` of `plan` into `folds` on a connection of its own: read-only, through a small page
// cache and no memory map. A scan reads each page once, so a large cache only fills (10M charges,
// 30 of 122 days, one core: 1.51-1.56 s through a 0.5 MB cache, 2.03-2.06 s through 64 MB,
// 1.62-1.71 s through a memory map). Its batches are folded in the turns of `thread`. The range
// was cut from the store's read transaction: its rows are those only while this connection reads
// the same generation (`expected`), else a writer committed in between (an ingest, a --replace
// that deleted rows, a VACUUM that renumbered them). `untouched`: whether a failure came before
// any row was read (no connection, another generation, a lock), so that the store's own
// connection can read the range instead.
core::Status read_part(const MultiScan& plan, const std::string& path,
                       const MultiScan::RowRange& part, const Generation& expected,
                       std::vector<GroupFold>& folds, TextIds& texts, FoldTurns& turns,
                       std::size_t thread, bool& untouched) {
  sqlite3* c = nullptr;
  core::Status s;
  untouched = true;
  if (sqlite3_open_v2(path.c_str(), &c, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr) !=
      SQLITE_OK) {
    s = core::make_error(
        core::ErrorCode::kIo,
        std::string("cannot open another connection: ") + (c ? sqlite3_errmsg(c) : "out of memory"),
        path);
    sqlite3_close(c);
    turns.leave(thread);
    return s;
  }
  sqlite3_busy_timeout(c, kBusyTimeoutMs);  // before anything else
  s = register_scan_function(c);
  if (s) s = sqlite_exec(c, path, "PRAGMA cache_size=-512; BEGIN");
  if (s) {
    auto g = generation(c, path);
    if (!g)
      s = g.error();
    else if (*g != expected)
      s = core::make_error(core::ErrorCode::kIo,
                           "the ledger changed while its scan was being split", path);
    else {
      untouched = false;  // a failure from here on may leave rows in the folds
      s = plan.scan(c, folds, texts, &part, &turns, thread);  // leaves the turns when it ends
    }
  }
  if (untouched) turns.leave(thread);
  sqlite3_close(c);  // ends the read transaction
  return s;
}

}  // namespace

core::Status SqliteReads::scan(const MultiScan& plan, std::vector<GroupFold>& folds, TextIds& texts,
                               bool shared) {
  // Other connections see what this one does only of a file (not ":memory:"), and only when
  // `shared`: in a read transaction of the scan's own (a writer's rows are not theirs to see).
  const char* file = sqlite3_db_filename(db_, "main");
  if (!file || !*file || !shared) return plan.scan(db_, folds, texts);
  auto ranges = plan.split(db_, threads(), options_.rows_per_scan_thread);
  if (!ranges) return ranges.error();
  // A small scan stays on this connection. A large one is read on connections of its own, one
  // thread per range (this one reading the first), all folding into the same groups in turns.
  if (ranges->empty() || ranges->front().size() < options_.rows_per_scan_thread)
    return plan.scan(db_, folds, texts);
  const auto gen = generation(db_, path_);
  if (!gen) return gen.error();
  if (const auto& hook = before_range_scans_hook()) hook();
  const std::string path(file);
  FoldTurns turns(ranges->size());
  std::vector<core::Status> status(ranges->size());
  std::deque<bool> untouched(ranges->size(), false);  // (not vector<bool>: threads set them apart)
  {
    std::vector<std::jthread> pool;
    for (std::size_t i = 1; i < ranges->size(); ++i)
      pool.emplace_back([&, i] {
        status[i] = read_part(plan, path, (*ranges)[i], *gen, folds, texts, turns, i, untouched[i]);
      });
    status[0] = read_part(plan, path, ranges->front(), *gen, folds, texts, turns, 0, untouched[0]);
  }  // joins
  // A range no other connection could read as this one sees the ledger (no second handle, a
  // writer that committed since, a lock) is read on this one, after the others.
  for (std::size_t i = 0; i < ranges->size(); ++i) {
    if (status[i]) continue;
    if (!untouched[i]) return status[i];
    if (auto s = plan.scan(db_, folds, texts, &(*ranges)[i]); !s) return s;
  }
  return {};
}

core::Status SqliteReads::aggregate_into(std::span<const ledger::AggregateQuery> queries,
                                         const ledger::Store::AggregateSink& sink,
                                         std::size_t interleave, std::size_t interleave_from) {
  // A query equal to an earlier one is answered from the earlier's groups.
  std::vector<std::size_t> slot(queries.size());  // each query's place among the distinct ones
  std::vector<ledger::AggregateQuery> distinct;
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const auto first = static_cast<std::size_t>(
        std::find(queries.begin(), queries.end(), queries[i]) - queries.begin());
    if (first == i) distinct.push_back(queries[i]);
    slot[i] = first == i ? distinct.size() - 1 : slot[first];
  }
  const ReadTransaction tx(db_);
  std::map<std::int64_t, std::vector<ledger::Tag>> tags;
  if (std::any_of(distinct.begin(), distinct.end(), [](const auto& q) { return q.reads_tags(); })) {
    auto t = tagsets_();
    if (!t) return t.error();
    tags = std::move(*t);
  }
  // The groups of every distinct query: one scan for all where they scan together, else one each.
  // The folds of a scan share their stand-ins (a row's resource id is looked up once); each holds
  // its query by reference and its stand-ins by address, so neither moves.
  struct Folded {
    TextIds texts;
    std::vector<GroupFold> folds;
  };
  std::vector<std::unique_ptr<Folded>> scans;
  std::vector<GroupFold*> fold(distinct.size());
  const bool together = scans_together(distinct);
  for (std::size_t d = 0; d < distinct.size(); d += together ? distinct.size() : 1) {
    const auto group = together ? std::span<const ledger::AggregateQuery>(distinct)
                                : std::span<const ledger::AggregateQuery>(distinct).subspan(d, 1);
    auto plan = MultiScan::plan(db_, group);
    if (!plan) return plan.error();
    auto& f = *scans.emplace_back(std::make_unique<Folded>());
    f.folds.reserve(group.size());
    for (const auto& q : group) f.folds.emplace_back(q, tags, &f.texts);
    if (auto s = scan(*plan, f.folds, f.texts, tx.own()); !s) return s;
    // Every row is in: the indexes are freed before the groups are handed out.
    f.texts.seal();
    for (std::size_t k = 0; k < group.size(); ++k) {
      f.folds[k].seal();
      fold[d + k] = &f.folds[k];
    }
  }
  auto lookup = [this](const std::vector<std::int64_t>& ids, std::vector<std::string>& out) {
    return this->lookup(ids, out);
  };
  std::vector<GroupFold*> answers;  // by query
  for (std::size_t i = 0; i < queries.size(); ++i) answers.push_back(fold[slot[i]]);
  return each_answer(answers, interleave, interleave_from, lookup, sink);
}

core::Result<std::vector<std::vector<ledger::AggregateRow>>> SqliteReads::aggregate_each(
    std::span<const ledger::AggregateQuery> queries) {
  std::vector<std::vector<ledger::AggregateRow>> out(queries.size());
  if (auto s = aggregate_into(
          queries,
          [&out](std::size_t i, ledger::AggregateRow& row) -> core::Status {
            out[i].push_back(std::move(row));
            return {};
          },
          0, 0);
      !s)
    return s.error();
  return out;
}

}  // namespace aicost::store
