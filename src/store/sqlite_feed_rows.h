// The rows an ingest feeds to SQLite through SqliteFeed (sqlite_feed.h): charges, daily-rollup
// rows and new strings, each with its column function, in the order of charge_columns(),
// daily_columns() (schema.h) and (id, value).
#pragma once

#include <sqlite3.h>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include "aicost/ledger/charge.h"
#include "id_rollup.h"
#include "schema.h"

namespace aicost::store {

struct ChargeRows {
  std::int64_t source_id;
  const ledger::Charge* charges;
  const std::int64_t* tagsets;
  const ChargeTextIds* ids;
};
void charge_column(const void* rows, std::size_t k, int column, sqlite3_context* out);

struct DailyRows {
  std::int64_t source_id;
  const IdRollupRow* rows;
};
void daily_column(const void* rows, std::size_t k, int column, sqlite3_context* out);

using NewString = std::pair<std::int64_t, std::string_view>;  // id, value
void string_column(const void* rows, std::size_t k, int column, sqlite3_context* out);

}  // namespace aicost::store
