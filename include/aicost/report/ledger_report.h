// Renderers of the ledger's answers: ingest results, loaded sources, attribution reports and
// conformance findings. Money prints with two decimals for people and exactly (every digit to
// 1e-9) in JSON and CSV (docs/LEDGER.md).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "aicost/billing/ingest.h"
#include "aicost/ledger/report.h"
#include "aicost/ledger/store.h"
#include "aicost/report/format.h"

namespace aicost::report {

std::string render_ingest(const std::string& path, const billing::IngestResult& r, Format f);
std::string render_sources(const std::vector<ledger::SourceRecord>& sources, Format f);
// `db`: the ledger compacted, as the user named it (a PostgreSQL URL without its password).
std::string render_compact(const std::string& db, const ledger::CompactResult& r, Format f);
std::string render_ledger_report(const ledger::Report& r, Format f);
// The report of `r` read from `store` and written to `out` as it is made (ledger::stream_report),
// as render_ledger_report(run_report(store, r), f) would write it: held whole only by the store's
// groups, or with --top by the top groups. Nothing is written before the store has read its rows.
core::Status write_ledger_report(ledger::Store& store, const ledger::ReportRequest& r, Format f,
                                 std::ostream& out);
// `failed`: set when the file breaks any rule (rows rejected or FOCUS requirements not met).
std::string render_validation(const std::string& path, const billing::Validation& v, Format f,
                              bool& failed);

}  // namespace aicost::report
