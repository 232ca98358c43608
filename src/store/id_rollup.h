// The daily rollup (ledger/rollup.h) keyed by string ids instead of text: the same groups, whose
// sums take the same rows in the same order, without hashing a dozen strings per row. Both stores
// write `charge_daily` from it.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "aicost/core/result.h"
#include "aicost/ledger/charge.h"
#include "aicost/ledger/query.h"
#include "hash_index.h"
#include "schema.h"

namespace aicost::store {

struct IdRollupRow {
  ledger::Day day = 0;
  RollupIds ids{};  // ledger::kRollupDims order
  std::int64_t tagset = 0;
  ledger::Sums sums;
};

// Adds charge `c` to a rollup group's sums. Rows come in load order, so the sums are reproducible
// (gpu_hours is a double: order matters).
inline void add_charge(ledger::Sums& s, const ledger::Charge& c) {
  s.billed += c.billed;
  s.effective += c.effective;
  s.list += c.list;
  s.contracted += c.contracted.value_or(0);
  s.gpu_hours += c.gpu_hours;
  s.rows += 1;
  s.consumed_quantity += c.consumed_quantity.value_or(0);
}

// Whether each money sum fits the ledger's int64 nano-units.
bool fits_int64(const ledger::Sums& s);

class IdRollup {
 public:
  // Adds `rows`; `ids` and `tagsets` are theirs (text ids in kChargeText order, tag set id).
  void add(std::span<const ledger::Charge> rows, std::span<const ChargeTextIds> ids,
           std::span<const std::int64_t> tagsets);
  std::vector<IdRollupRow> rows() const;  // sorted by day, then ids, then tag set
  // An error when a group's sum is beyond what the ledger stores (int64 nano-units, ±9.2e9 units),
  // naming the source line of the first row that took a group there (context "line N").
  core::Status check_fits() const;
  void clear() {
    index_.clear();
    blocks_.clear();
    groups_ = 0;
    overflow_line_ = 0;
  }

 private:
  struct Key {
    ledger::Day day = 0;
    std::int64_t tagset = 0;
    RollupIds ids{};
    friend bool operator==(const Key&, const Key&) = default;
  };
  struct Group {
    Key key;
    ledger::Sums sums;
  };
  // Groups by number, in blocks that never move: growing copies nothing and faults each page in
  // once.
  static constexpr std::size_t kBlockBits = 10;
  static constexpr std::size_t kBlockSize = std::size_t{1} << kBlockBits;
  Group& group(std::size_t g) { return blocks_[g >> kBlockBits][g & (kBlockSize - 1)]; }
  const Group& group(std::size_t g) const { return blocks_[g >> kBlockBits][g & (kBlockSize - 1)]; }
  HashIndex index_;  // over the groups
  std::vector<std::unique_ptr<Group[]>> blocks_;
  std::size_t groups_ = 0;
  std::int64_t overflow_line_ = 0;  // of the first row after which a group's sum left int64
  std::vector<std::pair<Key, std::uint64_t>>
      batch_;  // the keys of the rows being added, and their hashes
};

}  // namespace aicost::store
