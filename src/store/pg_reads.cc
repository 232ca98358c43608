#include "pg_reads.h"

#include <algorithm>

#include "group_fold.h"
#include "query_sql.h"
#include "schema.h"

namespace aicost::store {

core::Result<std::vector<ledger::AggregateRow>> PgReads::aggregate(
    const ledger::AggregateQuery& q) {
  std::vector<ledger::AggregateRow> out;
  if (auto s = aggregate_into(
          {&q, 1},
          [&out](std::size_t, ledger::AggregateRow& row) -> core::Status {
            out.push_back(std::move(row));
            return {};
          },
          0, 0);
      !s)
    return s.error();
  return out;
}

namespace {

// Rows a FETCH brings at a time: the client holds one batch of the server's groups, not all.
constexpr int kFetchRows = 20000;

// Folds one batch of aggregate_sql's rows; false when a cell does not parse.
bool fold_batch(const PGresult* res, const ledger::AggregateQuery& q, GroupFold& fold,
                std::vector<std::int64_t>& cells, std::string& text) {
  bool ok = true;
  for (int row = 0; row < PQntuples(res); ++row) {
    int i = 0;
    ledger::Day day = 0;
    if (q.by_day) ok &= cell(res, row, i++, day);
    for (auto& c : cells) {
      ok &= cell(res, row, i++, text);
      c = fold.text(text);
    }
    std::int64_t tagset = 0;
    if (q.reads_tags()) ok &= cell(res, row, i++, tagset);
    ledger::Sums s;
    ok &= wide_cell(res, row, i++, s.billed) && wide_cell(res, row, i++, s.effective) &&
          wide_cell(res, row, i++, s.list) && wide_cell(res, row, i++, s.contracted) &&
          cell(res, row, i++, s.gpu_hours) && cell(res, row, i++, s.rows) &&
          cell(res, row, i++, s.consumed_quantity) && cell(res, row, i++, s.first_day) &&
          cell(res, row, i++, s.last_day);
    fold.add(day, cells, tagset, s);
  }
  return ok;
}

}  // namespace

core::Status PgReads::fold(const ledger::AggregateQuery& q, GroupFold& fold) {
  // The resource-day rollup (schema 11) where the query fits it and the sources that have it hold
  // most of the rows.
  bool resource_rollup = false;
  if (fits_resource_rollup(q)) {
    auto r = run("aggregating charges", kResourceRollupShare);
    if (!r) return r.error();
    std::int64_t marked = 0, all = 0;
    if (PQntuples(r->get()) != 1 || !cell(r->get(), 0, 0, marked) || !cell(r->get(), 0, 1, all))
      return unexpected("aggregating charges");
    resource_rollup = use_resource_rollup(marked, all);
  }
  const auto a = aggregate_sql(q, Dialect::kPostgres, resource_rollup);
  // WITH HOLD: the cursor outlives its statement's own transaction (none is open here), the
  // server keeping the answer until it is read.
  if (auto r = run("aggregating charges",
                   "DECLARE aicost_aggregate NO SCROLL CURSOR WITH HOLD FOR " + a.sql, a.params);
      !r)
    return r.error();
  std::vector<std::int64_t> cells(q.dims.size() + 1);
  std::string text;
  core::Status status;
  for (;;) {
    auto r = run("aggregating charges",
                 "FETCH FORWARD " + std::to_string(kFetchRows) + " FROM aicost_aggregate");
    if (!r) {
      status = r.error();
      break;
    }
    if (!fold_batch(r->get(), q, fold, cells, text)) {
      status = unexpected("aggregating charges");
      break;
    }
    if (PQntuples(r->get()) < kFetchRows) break;
  }
  auto closed = run("aggregating charges", "CLOSE aicost_aggregate");
  if (!status) return status;
  if (!closed) return closed.error();
  return {};
}

core::Status PgReads::aggregate_into(std::span<const ledger::AggregateQuery> queries,
                                     const ledger::Store::AggregateSink& sink,
                                     std::size_t interleave, std::size_t interleave_from) {
  std::map<std::int64_t, std::vector<ledger::Tag>> tags;
  if (std::any_of(queries.begin(), queries.end(), [](const auto& q) { return q.reads_tags(); })) {
    auto t = tagsets_();
    if (!t) return t.error();
    tags = std::move(*t);
  }
  // Every cell comes as text: nothing to look up.
  auto none = [](const std::vector<std::int64_t>& ids, std::vector<std::string>&) -> core::Status {
    return core::make_error(core::ErrorCode::kInternal,
                            "unexpected string id " + std::to_string(ids.front()));
  };
  // Each distinct query's groups, read once.
  std::vector<std::unique_ptr<GroupFold>> folds;
  std::vector<GroupFold*> answers;  // by query
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const auto first = static_cast<std::size_t>(
        std::find(queries.begin(), queries.end(), queries[i]) - queries.begin());
    if (first < i) {
      answers.push_back(answers[first]);
      continue;
    }
    auto& f = folds.emplace_back(std::make_unique<GroupFold>(queries[i], tags));
    if (auto s = fold(queries[i], *f); !s) return s;
    f->seal();
    answers.push_back(f.get());
  }
  return each_answer(answers, interleave, interleave_from, none, sink);
}

}  // namespace aicost::store
