#include "sqlite_scan_rows.h"

#include "hash_index.h"

namespace aicost::store {
namespace {

// One row of the scan into the batch (arguments: the RowTaker, then its columns); the batch folded
// when full.
void take_row(sqlite3_context* context, int argc, sqlite3_value** argv) {
  auto* t =
      argc > 0 ? static_cast<RowTaker*>(sqlite3_value_pointer(argv[0], RowTaker::kType)) : nullptr;
  const std::size_t n = t ? t->encoded->size() : 0;
  if (!t || static_cast<std::size_t>(argc) != n + 11) {
    sqlite3_result_error(context, "aicost_scan_row: not called by a scan", -1);
    return;
  }
  try {
    ScanBatch& batch = *t->batch;
    sqlite3_value** v = argv + 1;
    batch.days.push_back(sqlite3_value_int(*v++));
    for (std::size_t k = 0; k < n; ++k, ++v) {
      if ((*t->encoded)[k]) {
        batch.cells.push_back(sqlite3_value_int64(*v));
      } else {
        const auto* p = reinterpret_cast<const char*>(sqlite3_value_text(*v));
        const auto size = static_cast<std::size_t>(sqlite3_value_bytes(*v));
        const std::string_view text(p ? p : "", p ? size : 0);
        batch.bytes.append(text);
        batch.ends.push_back(static_cast<std::uint32_t>(batch.bytes.size()));
        batch.hashes.push_back(hash_bytes(text.data(), text.size()));
        batch.cells.push_back(0);  // the stand-in, when folded
      }
    }
    batch.cells.push_back(sqlite3_value_int64(*v++));  // currency
    batch.cells.push_back(sqlite3_value_int64(*v++));  // tag set
    ledger::Sums& sums = batch.sums.emplace_back();
    sums.billed = sqlite3_value_int64(*v++);
    sums.effective = sqlite3_value_int64(*v++);
    sums.list = sqlite3_value_int64(*v++);
    sums.contracted = sqlite3_value_int64(*v++);
    sums.gpu_hours = sqlite3_value_double(*v++);
    sums.rows = sqlite3_value_int64(*v++);
    sums.consumed_quantity = sqlite3_value_double(*v++);
    sums.first_day = sums.last_day = batch.days.back();
    if (batch.size() == ScanBatch::kRows) (*t->fold)();
  } catch (...) {
    t->failure = std::current_exception();
    sqlite3_result_error_nomem(context);
    return;
  }
  sqlite3_result_null(context);
}

}  // namespace

core::Status register_scan_function(sqlite3* db) {
  // Direct only: no view, trigger or schema of a ledger file can call it.
  if (sqlite3_create_function_v2(db, kScanRowFunction, -1, SQLITE_UTF8 | SQLITE_DIRECTONLY, nullptr,
                                 take_row, nullptr, nullptr, nullptr) != SQLITE_OK)
    return core::make_error(
        core::ErrorCode::kInternal,
        std::string("SQLite: cannot add the scan's function: ") + sqlite3_errmsg(db));
  return {};
}

}  // namespace aicost::store
