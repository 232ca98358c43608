// Ledgers the ledger and governance benchmarks share, generated once under the build folder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "aicost/ledger/charge.h"

namespace aicost::bench {

inline const std::filesystem::path kWork =
    std::filesystem::path(AICOST_BINARY_DIR) / "ledger-bench";
inline const std::string kSample =
    std::string(AICOST_SOURCE_DIR) +
    "/../shared/data/billing-samples/focus-sample-data/focus_sample.csv";

// A SQLite ledger of `rows` charges drawn from the FOCUS sample (ledger_bench.cc); empty on
// failure.
std::filesystem::path ledger_with(std::size_t rows);
// A SQLite ledger of `rows` charges over `resources` resources, each billed every `resources`
// rows (its rows spread over the whole table), from the same sample rows; empty on failure.
std::filesystem::path wide_ledger_with(std::size_t rows, std::size_t resources);

// The charges of those ledgers, handed to `add` 8,192 at a time: row n bills resource
// `resource_of(n)`, one sample row's resource with the number appended to its id, at a random hour
// of 2024-06..09 (from `seed`); 70 % of the resources have one of 12 team tags. false when the
// sample cannot be read or `add` says false.
bool generate_charges(std::size_t rows, const std::function<std::size_t(std::size_t)>& resource_of,
                      std::uint64_t seed,
                      const std::function<bool(const std::vector<ledger::Charge>&)>& add);

// The hourly shape (as CUR and FOCUS exports bill a running instance): resources numbered on from
// `first_resource`, each living 3 to 21 days (uniform, from `seed`) from a random day of
// 2024-06..09 that fits, billed every hour of them (24 charges a day, in hour order; the last one
// cut at `rows`), with generate_charges' sample rows and team tags. About 288 charges and 12 days a
// resource: 100M rows are some 350k resources and 4.2M resource-days.
bool generate_hourly_charges(std::size_t rows, std::size_t first_resource, std::uint64_t seed,
                             const std::function<bool(const std::vector<ledger::Charge>&)>& add);

// `rows` FOCUS CSV rows drawn from the sample (kept under kWork once made): a random sample row,
// moved to a random hour of September 2024, its resource id suffixed with n / 50 (random rows
// rarely share a prefix, so nearly every row names its own resource: the pessimistic case), costs
// scaled by a log-normal factor, and a team tag added to 70 % of tagged rows.
std::filesystem::path generate_focus(std::size_t rows, std::uint64_t seed);

}  // namespace aicost::bench
