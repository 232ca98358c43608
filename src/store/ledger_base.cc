#include "ledger_base.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <unordered_set>

#include "aicost/core/text.h"
#include "recheck.h"

namespace aicost::store {
namespace {

using core::ErrorCode;
using core::make_error;

// Where the currency's id sits in a rollup row's ids.
constexpr std::size_t kCurrencySlot = [] {
  std::size_t i = 0;
  while (ledger::kRollupDims[i] != ledger::Dimension::kCurrency) ++i;
  return i;
}();

// The reader filled the batch's rows thousands of rows ago, and their strings lie all over the
// heap: reading them is most of the id pass's time. So it asks for the Charge kAhead rows ahead,
// and for the bytes of the strings of the one half as far ahead (whose pointers are in the lines
// asked for before).
void prefetch_ahead(std::span<const ledger::Charge> rows, std::size_t k) {
  constexpr std::size_t kAhead = 8;
  if (k + kAhead < rows.size()) {
    const char* p = reinterpret_cast<const char*>(&rows[k + kAhead]);
    for (std::size_t line = 0; line < sizeof(ledger::Charge); line += 64)
      __builtin_prefetch(p + line);
  }
  if (k + kAhead / 2 < rows.size()) {
    const auto& c = rows[k + kAhead / 2];
    for (const auto& t : kChargeText) __builtin_prefetch((c.*t.field).data());
    for (const auto& tag : c.tags) {
      __builtin_prefetch(tag.key.data());
      __builtin_prefetch(tag.value.data());
    }
  }
}

}  // namespace

core::Result<std::optional<ledger::SourceRecord>> LedgerBase::find_source(
    const std::string& sha256) {
  auto all = select_sources(SourceKey::kSha256, sha256);
  if (!all) return all.error();
  if (all->empty()) return std::optional<ledger::SourceRecord>{};
  return std::optional<ledger::SourceRecord>(all->front());
}

core::Result<std::vector<ledger::SourceRecord>> LedgerBase::sources_at(const std::string& path) {
  return select_sources(SourceKey::kPath, path);
}

core::Result<std::vector<ledger::SourceRecord>> LedgerBase::sources() {
  return select_sources(SourceKey::kAll, "");
}

core::Result<std::optional<ledger::SourceRecord>> LedgerBase::begin_source(
    const ledger::SourceFile& file, const std::vector<std::int64_t>& replace) {
  if (in_tx_) return make_error(ErrorCode::kInternal, "begin_source inside an open ingest");
  if (auto s = begin_write(Writer::kIngest); !s) return s.error();
  in_tx_ = true;
  // Another process may have loaded these bytes, or this path, while this one waited.
  auto same = select_sources(SourceKey::kSha256, file.sha256);
  if (!same) return fail(same.error());
  auto at_path = select_sources(SourceKey::kPath, file.path);
  if (!at_path) return fail(at_path.error());
  if (file.path == "(stdin)") at_path->clear();  // every load of standard input has this name
  auto again = recheck_under_lock(*same, *at_path, replace);
  if (!again || *again) {
    rollback();
    return again;
  }
  for (auto id : replace)
    if (auto s = drop_source(id); !s) return fail(s);
  record_ = {};
  record_.file = file;
  record_.loaded_at = core::utc_now_iso();
  auto ins = query("recording the source",
                   "INSERT INTO sources (path, sha256, bytes, format, loaded_at) VALUES ($1, $2, "
                   "$3, $4, $5) RETURNING id",
                   {std::string_view(file.path), std::string_view(file.sha256), file.bytes,
                    std::string_view(file.format), std::string_view(record_.loaded_at)});
  if (!ins) return fail(ins.error());
  if (ins->size() != 1)
    return fail(make_error(ErrorCode::kInternal, "recording the source returned no id", ledger_));
  source_id_ = record_.id = ins->i64(0, 0);
  rows_ = 0;
  warnings_ = 0;
  rollup_.clear();
  resources_.clear();
  hours_.clear();
  if (auto s = load_caches(); !s) return fail(s);
  return std::optional<ledger::SourceRecord>{};
}

// Deletes a source and everything loaded from it, inside the open transaction.
core::Status LedgerBase::drop_source(std::int64_t id) {
  auto days = daily_days(id);
  if (!days) return days.error();
  for (const char* table :
       {"charges", "charge_daily", "charge_resource_daily", "gpu_samples", "gpu_hourly",
        "contract_commitments", "row_issues", "source_totals", "sources"}) {
    const std::string sql =
        std::string("DELETE FROM ") + table +
        (std::string_view(table) == "sources" ? " WHERE id = $1" : " WHERE source_id = $1");
    if (auto r = query("deleting a replaced source", sql, {id}); !r) return r.error();
  }
  return remerge_days(std::move(*days));
}

// Tag sets and strings are never deleted and take ids above every earlier one, and writers take
// turns under the lock begin_source holds: what other connections committed since the last look
// has ids above the highest one seen.
core::Status LedgerBase::load_caches() {
  auto sets =
      query("reading tag sets", "SELECT id, canonical FROM tagsets WHERE id > $1", {max_tagset_});
  if (!sets) return sets.error();
  for (std::size_t r = 0; r < sets->size(); ++r) {
    const std::int64_t id = sets->i64(r, 0);
    tagset_ids_[sets->text(r, 1)] = id;
    max_tagset_ = std::max(max_tagset_, id);
  }
  auto strings =
      query("reading strings", "SELECT id, value FROM strings WHERE id > $1", {strings_.max_id()});
  if (!strings) return strings.error();
  for (std::size_t r = 0; r < strings->size(); ++r) {
    const auto* value = std::get_if<std::string>(&strings->rows[r][1]);
    strings_.add(value ? std::string_view(*value) : std::string_view(), strings->i64(r, 0));
  }
  if (!sets->ok() || !strings->ok())
    return make_error(ErrorCode::kInternal,
                      "an unexpected value in the ledger's tag sets or strings", ledger_);
  return {};
}

// Every row's tag set and string ids, from the caches; the sets and strings new to the ledger are
// stored first (each once, in the order first seen), in two calls whatever the batch's size.
core::Status LedgerBase::intern(std::span<const ledger::Charge> rows) {
  tagsets_.resize(rows.size());
  ids_.resize(rows.size());
  std::unordered_map<std::string, std::size_t>
      fresh_sets;  // canonical text -> its place in new_sets
  std::vector<NewTagset> new_sets;
  std::unordered_set<std::string_view> fresh_strings;
  std::vector<std::string_view> new_strings;
  std::vector<std::size_t> incomplete;  // rows with a new string
  for (std::size_t k = 0; k < rows.size(); ++k) {
    prefetch_ahead(rows, k);
    const auto& tags = rows[k].tags;
    std::int64_t tagset = tags.empty() ? 0 : raw_ids_.find(tags);
    if (tagset == RawTagsets::kUnknown) {
      std::string canonical = ledger::tagset_text(tags);
      if (auto it = tagset_ids_.find(canonical); it != tagset_ids_.end()) {
        raw_ids_.add(tags, it->second);
        tagset = it->second;
      } else {
        auto [f, fresh] = fresh_sets.emplace(std::move(canonical), new_sets.size());
        if (fresh) new_sets.push_back({f->first, &tags});
        tagset = -1 - static_cast<std::int64_t>(f->second);  // filled in below
      }
    }
    tagsets_[k] = tagset;
    if (strings_.find(rows[k], ids_[k])) continue;
    incomplete.push_back(k);
    for (std::size_t i = 0; i < kChargeTextCount; ++i) {
      if (ids_[k][i] != StringIds::kUnknown) continue;
      const std::string& v = rows[k].*kChargeText[i].field;
      if (fresh_strings.insert(v).second) new_strings.push_back(v);
    }
  }
  if (!new_sets.empty()) {
    auto ids = store_tagsets(new_sets);
    if (!ids) return ids.error();
    for (std::size_t i = 0; i < new_sets.size(); ++i) {
      tagset_ids_.emplace(std::string(new_sets[i].canonical), (*ids)[i]);
      raw_ids_.add(*new_sets[i].tags, (*ids)[i]);
      max_tagset_ = std::max(max_tagset_, (*ids)[i]);
    }
    for (auto& t : tagsets_)
      if (t < 0) t = (*ids)[static_cast<std::size_t>(-1 - t)];
  }
  if (!new_strings.empty()) {
    auto ids = store_strings(new_strings, strings_.max_id());
    if (!ids) return ids.error();
    for (std::size_t i = 0; i < new_strings.size(); ++i) strings_.add(new_strings[i], (*ids)[i]);
  }
  for (auto k : incomplete)
    if (!strings_.find(rows[k], ids_[k]))
      return make_error(ErrorCode::kInternal, "a string just stored in the ledger has no id",
                        ledger_);
  return {};
}

core::Status LedgerBase::add_charges(std::span<const ledger::Charge> rows) {
  if (!in_tx_) return make_error(ErrorCode::kInternal, "add_charges outside an ingest");
  if (auto s = intern(rows); !s) return fail(s);
  rollup_.add(rows, std::span(ids_.data(), rows.size()), std::span(tagsets_.data(), rows.size()));
  resources_.add(rows, std::span(ids_.data(), rows.size()),
                 std::span(tagsets_.data(), rows.size()));
  if (auto s = load_charges(source_id_, rows, tagsets_.data(), ids_.data()); !s) return fail(s);
  rows_ += static_cast<std::int64_t>(rows.size());
  return {};
}

core::Status LedgerBase::add_samples(std::span<const ledger::GpuSample> samples) {
  if (!in_tx_) return make_error(ErrorCode::kInternal, "add_samples outside an ingest");
  auto s = load(
      "inserting GPU samples", "gpu_samples", 13, samples.size(), [&](std::size_t k, RowSink& out) {
        const auto& g = samples[k];
        out.i64(source_id_);
        out.i64(g.line);
        out.i64(g.time);
        out.text(ledger::gpu_metric_name(g.metric));
        out.real(g.value);
        for (const std::string* v :
             {&g.host, &g.gpu, &g.uuid, &g.model_name, &g.ns, &g.pod, &g.container, &g.job})
          out.text(*v);
        out.end_row();
      });
  if (!s) return fail(s);
  rows_ += static_cast<std::int64_t>(samples.size());
  hours_.add(samples);
  return {};
}

// FOCUS 1.3 Contract Commitment rows: money NULL when the term commits a quantity only.
core::Status LedgerBase::add_commitments(std::span<const ledger::ContractCommitment> rows) {
  if (!in_tx_) return make_error(ErrorCode::kInternal, "add_commitments outside an ingest");
  auto s =
      load("inserting contract commitments", "contract_commitments", 15, rows.size(),
           [&](std::size_t k, RowSink& out) {
             const auto& c = rows[k];
             out.i64(source_id_);
             out.i64(c.line);
             for (const std::string* v : {&c.contract_id, &c.commitment_id, &c.category, &c.type,
                                          &c.description, &c.currency})
               out.text(*v);
             if (c.cost)
               out.i64(*c.cost);
             else
               out.null();
             if (c.quantity)
               out.real(*c.quantity);
             else
               out.null();
             out.text(c.unit);
             for (auto t : {c.commitment_start, c.commitment_end, c.contract_start, c.contract_end})
               out.i64(t);
             out.end_row();
           });
  if (!s) return fail(s);
  rows_ += static_cast<std::int64_t>(rows.size());
  return {};
}

core::Status LedgerBase::add_issues(std::span<const ledger::RowIssue> issues) {
  if (!in_tx_) return make_error(ErrorCode::kInternal, "add_issues outside an ingest");
  auto s = load("recording row issues", "row_issues", 5, issues.size(),
                [&](std::size_t k, RowSink& out) {
                  const auto& r = issues[k];
                  out.i64(source_id_);
                  out.i64(r.line);
                  out.text(r.column);
                  out.text(ledger::severity_name(r.severity));
                  out.text(r.message);
                  out.end_row();
                });
  if (!s) return fail(s);
  for (const auto& r : issues) warnings_ += r.severity == ledger::RowIssue::Severity::kWarning;
  return {};
}

core::Result<ledger::SourceRecord> LedgerBase::commit_source(const std::string& format,
                                                             std::int64_t rejected) {
  if (!in_tx_) return make_error(ErrorCode::kInternal, "commit_source outside an ingest");
  if (auto s = rollup_.check_fits(); !s) return fail(s);
  const auto daily = rollup_.rows();
  if (auto s = load_daily(source_id_, daily); !s) return fail(s);
  if (auto s = merge_source(source_id_); !s) return fail(s);
  if (auto s = write_resource_rollup(); !s) return fail(s);
  const auto hours = hours_.rows();
  hours_.clear();
  auto s = load("inserting hourly telemetry", "gpu_hourly", 7, hours.size(),
                [&](std::size_t k, RowSink& out) {
                  const auto& h = hours[k];
                  out.i64(source_id_);
                  out.i64(h.hour);
                  out.text(h.host);
                  out.text(h.gpu);
                  out.text(ledger::gpu_metric_name(h.metric));
                  out.real(h.sum);
                  out.i64(h.samples);
                  out.end_row();
                });
  if (!s) return fail(s);
  if (auto r = query(
          "closing the source",
          "UPDATE sources SET rows = $1, rejected = $2, warnings = $3, format = $4 WHERE id = $5",
          {rows_, rejected, warnings_, std::string_view(format), source_id_});
      !r)
    return fail(r.error());
  // The record as committed, from what this ingest wrote (reading it back costs a scan of the
  // source's rollup): totals per currency, in byte order.
  record_.file.format = format;
  record_.rows = rows_;
  record_.rejected = rejected;
  record_.warnings = warnings_;
  std::map<std::int64_t, ledger::CurrencyTotal> totals;
  for (const auto& r : daily) {
    auto& t = totals[r.ids[kCurrencySlot]];
    t.billed += r.sums.billed;
    t.effective += r.sums.effective;
  }
  for (auto& [id, t] : totals) {
    if (auto w = write_source_totals(source_id_, id, t); !w) return fail(w);
    auto q = query("reading a currency", "SELECT value FROM strings WHERE id = $1", {id});
    if (!q) return fail(q.error());
    if (q->size() != 1)
      return fail(make_error(ErrorCode::kInternal, "a currency without its string", ledger_));
    t.currency = q->text(0, 0);
    record_.totals.push_back(std::move(t));
  }
  std::sort(record_.totals.begin(), record_.totals.end(),
            [](const auto& a, const auto& b) { return a.currency < b.currency; });
  if (auto c = commit_write(); !c) return fail(c);
  in_tx_ = false;
  return record_;
}

core::Result<std::optional<ledger::SourceRecord>> LedgerBase::settle_identity(
    const std::string& sha256, std::int64_t bytes) {
  if (!in_tx_) return make_error(ErrorCode::kInternal, "settle_identity outside an ingest");
  auto same = select_sources(SourceKey::kSha256, sha256);
  if (!same) return same.error();
  for (const auto& r : *same)
    if (r.id != source_id_) return std::optional<ledger::SourceRecord>(r);
  if (auto r = query("recording the source's identity",
                     "UPDATE sources SET sha256 = $1, bytes = $2 WHERE id = $3",
                     {std::string_view(sha256), bytes, source_id_});
      !r)
    return r.error();
  record_.file.sha256 = sha256;
  record_.file.bytes = bytes;
  return std::optional<ledger::SourceRecord>{};
}

void LedgerBase::rollback() noexcept {
  if (!in_tx_) return;
  in_tx_ = false;
  rollback_write();
  // Ids handed out inside the transaction are void.
  tagset_ids_.clear();
  raw_ids_.clear();
  max_tagset_ = 0;
  strings_.clear();
  rollup_.clear();
  resources_.clear();
  hours_.clear();
}

}  // namespace aicost::store
