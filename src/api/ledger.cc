// `aicost ledger ingest|report|sources` and the ledger's opening, shared by the CLI, the Python
// module and the dashboard (include/aicost/api/ledger.h). `check`: ledger_check.cc.
#include "aicost/api/ledger.h"

#include <chrono>
#include <optional>

#include "aicost/billing/ingest.h"
#include "aicost/config/rate_card.h"
#include "aicost/core/units.h"
#include "aicost/ledger/report.h"
#include "aicost/report/ledger_report.h"

namespace aicost::api {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t comma; (comma = s.find(',', start)) != std::string::npos; start = comma + 1)
    out.push_back(trim(s.substr(start, comma - start)));
  out.push_back(trim(s.substr(start)));
  return out;
}

}  // namespace

core::Result<std::unique_ptr<ledger::Store>> open_ledger(const LedgerDb& d, store::OpenMode mode,
                                                         bool* created) {
  auto timeout = core::parse_duration(d.lock_timeout);
  if (!timeout) return timeout.error().with_context("--lock-timeout");
  if (timeout->value() < 0)
    return core::make_error(core::ErrorCode::kInvalidInput, "a lock timeout cannot be negative",
                            "--lock-timeout");
  store::StoreOptions so;
  so.mode = mode;
  so.scan_threads = d.threads;
  so.lock_timeout = std::chrono::milliseconds(static_cast<std::int64_t>(timeout->value() * 1000));
  const auto notice = d.notice;
  so.on_wait = [notice](const store::LockHolder& holder, std::chrono::milliseconds t) {
    if (notice)
      notice(store::describe(holder) + "; waiting up to " + store::describe(t) +
             " (--lock-timeout)");
  };
  if (created) *created = false;
  so.on_create = [created, notice](const std::string& where) {
    if (created)
      *created = true;
    else if (notice)
      notice("created a new ledger at " + where);
  };
  auto s = store::open_store(d.db, so);
  if (!s) return s.error().with_context("--db");
  return s;
}

core::Error scrub_error(const core::Error& e, const std::string& db) {
  core::Error out = e;
  out.message = store::scrub(e.message, db);
  out.context = store::scrub(e.context, db);
  if (out.location) out.location->file = store::scrub(out.location->file, db);
  return out;
}

core::Result<ledger::Day> as_of_day(const std::string& text) {
  if (text.empty()) {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    return static_cast<ledger::Day>(std::chrono::duration_cast<std::chrono::days>(now).count());
  }
  auto day = ledger::parse_day(text);
  if (!day) return day.error().with_context("--as-of");
  return day;
}

core::Result<LedgerIngestSummary> ledger_ingest(const LedgerDb& d, const LedgerIngestOptions& o,
                                                report::Format fmt, const IngestEach& each) {
  auto format = billing::parse_format(o.format);
  if (!format) return format.error().with_context("--format");
  auto store = open_ledger(d, store::OpenMode::kCreate);
  if (!store) return scrub_error(store.error(), d.db);
  billing::IngestOptions opts;
  opts.format = *format;
  opts.replace = o.replace;
  std::optional<ledger::RateCard> card;
  if (!o.rate_card.empty()) {
    auto cat = load_catalog(o.catalog_files);
    if (!cat) return cat.error();
    auto c = config::load_rate_card(o.rate_card, *cat);
    if (!c) return c.error();
    card = std::move(*c);
    opts.rate_card = &*card;
  }
  opts.restate = o.restate;
  opts.export_name = o.export_name;
  LedgerIngestSummary summary;
  for (const auto& file : o.files) {
    auto r = billing::ingest_file(**store, file, opts);
    if (!r) {
      ++summary.files_failed;
      if (each) each(file, scrub_error(r.error(), d.db));
      continue;
    }
    summary.rows_left_out |= r->summary.rejected > 0;
    if (each) each(file, report::render_ingest(file, *r, fmt));
  }
  return summary;
}

core::Result<ledger::ReportRequest> ledger_report_request(const LedgerReportOptions& o) {
  ledger::ReportRequest r;
  for (const auto& name : split_commas(o.by)) {
    if (name.empty()) continue;
    auto k = ledger::parse_group_key(name);
    if (!k) return k.error().with_context("--by");
    r.by.push_back(*k);
  }
  auto g = ledger::parse_granularity(o.granularity);
  if (!g) return g.error().with_context("--granularity");
  r.granularity = *g;
  if (!o.from.empty()) {
    auto d = ledger::parse_day(o.from, ledger::DayForm::kDayOrMonth);
    if (!d) return d.error().with_context("--from");
    r.from = *d;
  }
  if (!o.to.empty()) {
    auto d = ledger::parse_day(o.to, ledger::DayForm::kDayOrMonth);
    if (!d) return d.error().with_context("--to");
    r.to = *d;
  }
  if (r.from && r.to && *r.to <= *r.from)
    return core::make_error(core::ErrorCode::kInvalidInput,
                            "--to must be after --from (--to is the first day left out)");
  r.top = o.top;
  r.useful = o.useful;
  for (const auto& f : o.filters) {
    const auto eq = f.find('=');
    if (eq == std::string::npos)
      return core::make_error(core::ErrorCode::kInvalidInput,
                              "write a filter as DIMENSION=VALUE, e.g. tag:team=ml", f);
    auto k = ledger::parse_group_key(trim(f.substr(0, eq)));
    if (!k) return k.error().with_context("--filter");
    r.filters.push_back({*k, f.substr(eq + 1)});
  }
  for (const auto& a : o.aliases) {
    const auto eq = a.find('=');
    if (eq == std::string::npos)
      return core::make_error(core::ErrorCode::kInvalidInput,
                              "write an alias as KEY=OTHER[,OTHER...], e.g. team=owner,squad", a);
    auto& list = r.aliases[ledger::canonical_tag_key(a.substr(0, eq))];
    for (const auto& other : split_commas(a.substr(eq + 1)))
      if (!other.empty()) list.push_back(ledger::canonical_tag_key(other));
  }
  return r;
}

core::Status ledger_report(const LedgerDb& d, const LedgerReportOptions& options,
                           report::Format fmt, std::ostream& out) {
  auto req = ledger_report_request(options);
  if (!req) return req.error();
  auto store = open_ledger(d, store::OpenMode::kExisting);
  if (!store) return scrub_error(store.error(), d.db);
  if (auto s = report::write_ledger_report(**store, *req, fmt, out); !s)
    return scrub_error(s.error(), d.db);
  return {};
}

core::Result<Output> ledger_sources(const LedgerDb& d, report::Format fmt) {
  auto store = open_ledger(d, store::OpenMode::kExisting);
  if (!store) return scrub_error(store.error(), d.db);
  auto list = (*store)->sources();
  if (!list) return scrub_error(list.error(), d.db);
  Output out;
  out.text = report::render_sources(*list, fmt);
  return out;
}

}  // namespace aicost::api
