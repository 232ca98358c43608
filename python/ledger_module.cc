// aicost._native_ledger: the ledger's calls for Python (aicost.Ledger, python/aicost/_ledger.py).
// Apart from aicost._native (module.cc) because they link the store's, billing's and notify's
// libraries (libpq, SQLite, libarchive, cpp-httplib; DuckDB through duckdb_lazy.cc), which the
// planning calls do not need: loading them is most of an import's time. The package imports this
// module on a ledger's first call. Each call opens the ledger, works without the GIL and closes it.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "aicost/api/ledger.h"
#include "call.h"
#include "to_python.h"

namespace py = pybind11;
using aicost::api::Output;
using aicost::core::Result;
using aicost::python::error_dict;
using aicost::python::format_of;
using aicost::python::from_json;
using aicost::python::json_format;
using aicost::python::to_python;
using aicost::python::unlocked;

namespace {

aicost::api::LedgerDb ledger_db(const std::string& db, unsigned threads,
                                const std::string& lock_timeout) {
  aicost::api::LedgerDb d;
  d.db = db;
  d.threads = threads;
  d.lock_timeout = lock_timeout;
  return d;  // no notices: a Python caller sees the result (a ledger made, a wait) in its call's
             // time
}

}  // namespace

PYBIND11_MODULE(_native_ledger, m) {
  m.doc() = "aicost's ledger commands as library calls (use aicost.Ledger)";

  m.def("ledger_ingest",
        [](const std::string& db, unsigned threads, const std::string& lock_timeout,
           const std::vector<std::string>& files, const std::string& format,
           const std::string& rate_card, const std::vector<std::string>& catalogs, bool replace,
           bool restate, const std::string& export_name) {
          aicost::api::LedgerIngestOptions o;
          o.files = files;
          o.format = format;
          o.rate_card = rate_card;
          o.catalog_files = catalogs;
          o.replace = replace;
          o.restate = restate;
          o.export_name = export_name;
          struct Each {
            std::string file;
            Result<std::string> outcome;
          };
          std::vector<Each> each;
          std::optional<Result<aicost::api::LedgerIngestSummary>> summary;
          {
            py::gil_scoped_release release;
            summary.emplace(aicost::api::ledger_ingest(
                ledger_db(db, threads, lock_timeout), o, json_format(),
                [&](const std::string& file, const Result<std::string>& outcome) {
                  each.push_back({file, outcome});
                }));
          }
          if (!*summary) return py::make_tuple(false, error_dict(summary->error()));
          py::list files_out;
          for (const auto& e : each) {
            if (e.outcome)
              files_out.append(py::make_tuple(e.file, true, from_json(*e.outcome)));
            else
              files_out.append(py::make_tuple(e.file, false, error_dict(e.outcome.error())));
          }
          return py::make_tuple(true, files_out, (*summary)->rows_left_out);
        });

  m.def("ledger_report",
        [](const std::string& db, unsigned threads, const std::string& by, const std::string& from,
           const std::string& to, const std::string& granularity, std::size_t top,
           const std::vector<std::string>& filters, const std::vector<std::string>& aliases,
           bool useful, bool html) {
          aicost::api::LedgerReportOptions o;
          o.by = by;
          o.from = from;
          o.to = to;
          o.granularity = granularity;
          o.top = top;
          o.filters = filters;
          o.aliases = aliases;
          o.useful = useful;
          return to_python(unlocked([&]() -> Result<Output> {
                             std::ostringstream text;
                             auto s = aicost::api::ledger_report(ledger_db(db, threads, "10min"), o,
                                                                 format_of(html), text);
                             if (!s) return s.error();
                             Output out;
                             out.text = std::move(text).str();
                             return out;
                           }),
                           !html);
        });

  m.def("ledger_sources", [](const std::string& db, unsigned threads) {
    return to_python(unlocked([&] {
      return aicost::api::ledger_sources(ledger_db(db, threads, "10min"), json_format());
    }));
  });

  m.def("ledger_check", [](const std::string& db, unsigned threads, const std::string& lock_timeout,
                           const std::string& budgets, const std::string& as_of, bool dry_run,
                           bool strict, int stale_after_days, std::size_t limit, bool html) {
    aicost::api::LedgerCheckOptions o;
    o.budgets = budgets;
    o.as_of = as_of;
    o.dry_run = dry_run;
    o.strict = strict;
    o.stale_after_days = stale_after_days;
    o.limit = limit;
    return to_python(unlocked([&]() -> Result<Output> {
                       auto r = aicost::api::ledger_check(ledger_db(db, threads, lock_timeout), o,
                                                          format_of(html));
                       if (!r) return r.error();
                       return static_cast<Output&&>(std::move(*r));
                     }),
                     !html);
  });
}
