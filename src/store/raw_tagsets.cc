#include "raw_tagsets.h"

#include <cstring>

namespace aicost::store {
namespace {

void put_size(std::string& out, std::size_t n) {
  const auto v = static_cast<std::uint32_t>(n);
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

}  // namespace

std::uint64_t RawTagsets::hash(const std::vector<ledger::Tag>& tags) {
  std::uint64_t h = tags.size();
  for (const auto& t : tags) {
    h = hash_bytes(t.key.data(), t.key.size(), h);
    h = hash_bytes(t.value.data(), t.value.size(), h);
  }
  return h;
}

bool RawTagsets::same(const Entry& e, const std::vector<ledger::Tag>& tags) const {
  const char* p = bytes_.data() + e.offset;
  const char* end = p + e.size;
  for (const auto& t : tags) {
    for (const std::string* s : {&t.key, &t.value}) {
      std::uint32_t n;
      if (end - p < static_cast<std::ptrdiff_t>(sizeof n)) return false;
      std::memcpy(&n, p, sizeof n);
      p += sizeof n;
      if (n != s->size() || static_cast<std::size_t>(end - p) < n ||
          std::memcmp(p, s->data(), n) != 0)
        return false;
      p += n;
    }
  }
  return p == end;
}

std::int64_t RawTagsets::find(const std::vector<ledger::Tag>& tags) const {
  const auto k = index_.find(hash(tags), [&](std::size_t i) { return same(entries_[i], tags); });
  return k == HashIndex::kNone ? kUnknown : entries_[k].id;
}

void RawTagsets::add(const std::vector<ledger::Tag>& tags, std::int64_t id) {
  const std::size_t offset = bytes_.size();
  for (const auto& t : tags) {
    put_size(bytes_, t.key.size());
    bytes_ += t.key;
    put_size(bytes_, t.value.size());
    bytes_ += t.value;
  }
  entries_.push_back({offset, bytes_.size() - offset, id});
  index_.insert(hash(tags), entries_.size() - 1);
}

void RawTagsets::clear() {
  index_.clear();
  entries_.clear();
  bytes_.clear();
}

}  // namespace aicost::store
