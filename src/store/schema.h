// The ledger schema, shared by both backends: versioned migrations, applied in order, each in a
// transaction; `schema_migrations` records which ran.
//
// The text columns of `charges` and `charge_daily` are dictionary-encoded: each `<name>_sid`
// column holds the id of its value in `strings` (id <-> value is one-to-one, so grouping by ids
// groups by text). All but `resource_id`, which takes about as many values as there are
// resources, up to one per row, where a dictionary costs more than it saves. `charges_text` is a
// view with every id resolved, for people reading the ledger.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "aicost/ledger/charge.h"
#include "aicost/ledger/query.h"
#include "aicost/ledger/rollup.h"
#include "aicost/ledger/telemetry.h"

namespace aicost::store {

enum class Dialect { kSqlite, kPostgres };

struct Migration {
  int version;
  std::string sql;  // one or more statements separated by ';'
};

// The two dialects' migrations carry the same versions; their SQL may differ (PostgreSQL's 3 also
// moves its unique indexes over text onto digests; its 6 partitions `charges` by month, which
// SQLite's 6 leaves as it is).
std::vector<Migration> migrations(Dialect d);
// The newest version, so that a migration added to the list is the version a new ledger gets.
inline int latest_schema_version() { return migrations(Dialect::kSqlite).back().version; }

// A dictionary-encoded text column of `charges` and the Charge field it stores.
struct TextColumn {
  const char* column;  // "provider_sid"
  std::string ledger::Charge::*field;
};
inline constexpr std::size_t kChargeTextCount = 21;
extern const std::array<TextColumn, kChargeTextCount> kChargeText;
// The string ids of one charge, in kChargeText order.
using ChargeTextIds = std::array<std::int64_t, kChargeTextCount>;
// The ids of a rollup row's dimensions, in ledger::kRollupDims order.
using RollupIds = std::array<std::int64_t, ledger::kRollupDimCount>;

// The column a plain dimension lives in (same name in `charges` and `charge_daily`):
// "provider_sid", or "resource_id" (text).
const char* dimension_column(ledger::Dimension d);
// Whether that column holds string ids.
bool dimension_encoded(ledger::Dimension d);
// Its position in kChargeText; kChargeTextCount for resource_id.
std::size_t text_slot(ledger::Dimension d);

// Column lists, in the order the stores write them (the INSERT and COPY column lists):
// `charges`: source_id, line, day, period_start, period_end, billing_period_start, billed,
//   effective, list, contracted, pricing_quantity, consumed_quantity, gpu_hours, tagset_id,
//   resource_id, then kChargeText;
// `charge_daily`: source_id, day, kRollupDims, tagset_id, billed, effective, list, contracted,
//   gpu_hours, rows, consumed_quantity.
inline constexpr int kChargeColumnCount = 15 + static_cast<int>(kChargeTextCount);
inline constexpr int kDailyColumnCount = 10 + static_cast<int>(ledger::kRollupDimCount);
std::string charge_columns();
std::string daily_columns();
// `charge_daily_merged` (the daily rollup summed over sources): its key, day, kRollupDims,
// tagset_id; its columns, the key then billed, effective, list, contracted, gpu_hours, rows,
// consumed_quantity.
std::string merged_key();
std::string merged_columns();
// The INSERT that sums charge_daily's rows (`where`: "" or " WHERE ...") into
// charge_daily_merged, one row per key; the rows it makes must not be there yet.
std::string merged_from_daily(const std::string& where);

}  // namespace aicost::store
