// A store's cache of the `strings` dictionary (schema.h): value -> id for every string it has seen,
// so a charge's text columns become ids without a query per value. One per store, used by one
// thread at a time, like the connection.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "aicost/ledger/charge.h"
#include "hash_index.h"
#include "schema.h"

namespace aicost::store {

class StringIds {
 public:
  static constexpr std::int64_t kUnknown = 0;  // ids start at 1 in both backends

  // The ids of `c`'s text columns (kChargeText order); false when some are kUnknown (0). Allocates
  // nothing.
  bool find(const ledger::Charge& c, ChargeTextIds& out);

  struct Added {
    std::int64_t id;          // `value`'s id: the one given, or the one it already had
    std::string_view stored;  // the cache's copy of `value`, valid until clear()
    bool fresh;               // whether `value` was new
  };
  Added add(std::string_view value, std::int64_t id);

  std::int64_t max_id() const { return max_id_; }  // the highest id recorded; 0 when empty
  std::size_t size() const { return entries_.size(); }
  // Forgets everything: after a rollback, ids handed out inside it are void.
  void clear();

 private:
  struct Entry {
    const char* data;
    std::size_t size;
    std::int64_t id;
    std::string_view view() const { return {data, size}; }
  };
  std::size_t position(std::string_view value, std::uint64_t hash) const;
  const char* store(std::string_view value);

  HashIndex index_;  // over entries_
  std::vector<Entry> entries_;
  std::vector<std::unique_ptr<char[]>> blocks_;  // the values' bytes
  char* free_ = nullptr;
  std::size_t free_size_ = 0;
  std::int64_t max_id_ = 0;
  // Values found lately, by a hash of their ends (direct-mapped; id 0: empty). A few thousand
  // distinct values make up most cells of an export; this table stays in the CPU cache, where a
  // probe into an index of millions of strings misses it, and skips hashing every byte.
  struct Recent {
    std::uint64_t quick_hash;
    Entry entry;
  };
  static constexpr int kRecentBits = 12;
  std::vector<Recent> recent_ = std::vector<Recent>(std::size_t{1} << kRecentBits);
};

}  // namespace aicost::store
