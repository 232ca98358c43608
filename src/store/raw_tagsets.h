// Tag sets as rows wrote them (key case, order) -> tag set id: the per-row lookup in front of the
// canonical text (ledger::tagset_text), which costs an allocation and a sort. Each known list is
// kept as one run of bytes, so checking a row's tags against it reads one or two cache lines
// rather than a string object and a heap block per key and value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aicost/ledger/charge.h"
#include "hash_index.h"

namespace aicost::store {

class RawTagsets {
 public:
  static constexpr std::int64_t kUnknown = -1;

  std::int64_t find(const std::vector<ledger::Tag>& tags) const;    // kUnknown if not seen
  void add(const std::vector<ledger::Tag>& tags, std::int64_t id);  // tags not seen yet
  void clear();

 private:
  struct Entry {
    std::size_t offset, size;  // in bytes_
    std::int64_t id;
  };
  static std::uint64_t hash(const std::vector<ledger::Tag>& tags);
  bool same(const Entry& e, const std::vector<ledger::Tag>& tags) const;

  HashIndex index_;  // over entries_
  std::vector<Entry> entries_;
  std::string bytes_;  // per entry: (key size, key, value size, value) per tag
};

}  // namespace aicost::store
