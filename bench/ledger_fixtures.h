// Ledgers the ledger and governance benchmarks share, generated once under the build folder.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace aicost::bench {

inline const std::filesystem::path kWork = std::filesystem::path(AICOST_BINARY_DIR) / "ledger-bench";
inline const std::string kSample =
    std::string(AICOST_SOURCE_DIR) + "/../shared/data/billing-samples/focus-sample-data/focus_sample.csv";

// A SQLite ledger of `rows` charges drawn from the FOCUS sample (ledger_bench.cc); empty on failure.
std::filesystem::path ledger_with(std::size_t rows);
// A SQLite ledger of `rows` charges over `resources` resources, each billed every `resources`
// rows (its rows spread over the whole table), from the same sample rows; empty on failure.
std::filesystem::path wide_ledger_with(std::size_t rows, std::size_t resources);

}  // namespace aicost::bench
