#include "string_ids.h"

#include <algorithm>
#include <cstring>

namespace aicost::store {
namespace {

constexpr std::size_t kBlockBytes = 1 << 18;

// A hash of the length and the first and last (up to) 8 bytes: enough to pick a recent-values
// slot (a collision costs one comparison), at a fraction of hashing every byte.
std::uint64_t quick_hash(std::string_view v) {
  const char* p = v.data();
  const std::size_t n = v.size();
  std::uint64_t a = 0, b = 0;
  if (n >= 8) {
    std::memcpy(&a, p, 8);
    std::memcpy(&b, p + n - 8, 8);
  } else if (n >= 4) {
    std::uint32_t x, y;
    std::memcpy(&x, p, 4);
    std::memcpy(&y, p + n - 4, 4);
    a = x | std::uint64_t{y} << 32;
  } else if (n > 0) {
    a = static_cast<unsigned char>(p[0]) | static_cast<unsigned char>(p[n / 2]) << 8 |
        static_cast<unsigned char>(p[n - 1]) << 16;
  }
  return ((a * 0x9E3779B97F4A7C15ull) ^ (b * 0xC2B2AE3D27D4EB4Full) ^ n) * 0xFF51AFD7ED558CCDull;
}

}  // namespace

std::size_t StringIds::position(std::string_view value, std::uint64_t hash) const {
  return index_.find(hash, [&](std::size_t k) { return entries_[k].view() == value; });
}

bool StringIds::find(const ledger::Charge& c, ChargeTextIds& out) {
  bool all = true;
  for (std::size_t i = 0; i < kChargeTextCount; ++i) {
    const std::string& v = c.*kChargeText[i].field;
    const auto quick = quick_hash(v);
    Recent& r = recent_[quick >> (64 - kRecentBits)];
    if (r.quick_hash == quick && r.entry.id != kUnknown && r.entry.view() == v) {
      out[i] = r.entry.id;
      continue;
    }
    const auto k = position(v, hash_bytes(v.data(), v.size()));
    if (k == HashIndex::kNone) {
      out[i] = kUnknown;
      all = false;
      continue;
    }
    r = {quick, entries_[k]};
    out[i] = entries_[k].id;
  }
  return all;
}

StringIds::Added StringIds::add(std::string_view value, std::int64_t id) {
  const auto hash = hash_bytes(value.data(), value.size());
  if (const auto k = position(value, hash); k != HashIndex::kNone)
    return {entries_[k].id, entries_[k].view(), false};
  entries_.push_back({store(value), value.size(), id});
  index_.insert(hash, entries_.size() - 1);
  max_id_ = std::max(max_id_, id);
  return {id, entries_.back().view(), true};
}

const char* StringIds::store(std::string_view value) {
  if (value.empty()) return "";
  if (value.size() > free_size_) {
    const std::size_t bytes = std::max(kBlockBytes, value.size());
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(bytes));
    free_ = blocks_.back().get();
    free_size_ = bytes;
  }
  char* out = free_;
  std::memcpy(out, value.data(), value.size());
  free_ += value.size();
  free_size_ -= value.size();
  return out;
}

void StringIds::clear() {
  index_.clear();
  entries_.clear();
  blocks_.clear();
  free_ = nullptr;
  free_size_ = 0;
  max_id_ = 0;
  std::fill(recent_.begin(), recent_.end(), Recent{});
}

}  // namespace aicost::store
