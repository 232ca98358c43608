// An open-addressing hash index over entries kept elsewhere (a vector, an arena): each slot holds
// an entry's full hash and its position, so a probe touches one compact array and looks at an
// entry only when the hashes match. The stores' per-row caches (string ids, the id rollup) live
// on it: node-based maps cost a cache miss or two per lookup once they hold millions of keys.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace aicost::store {

class HashIndex {
 public:
  static constexpr std::size_t kNone = ~std::size_t{0};

  // The position of the entry with `hash` for which `same(position)` holds, or kNone.
  template <class Same>
  std::size_t find(std::uint64_t hash, Same&& same) const {
    if (slots_.empty()) return kNone;
    for (std::size_t i = hash & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.position == kNone) return kNone;
      if (s.hash == hash && same(s.position)) return s.position;
    }
  }
  // Hints for a caller that knows the hashes it will look up next (a batch of rows): bring the
  // slot into the CPU cache, and the position of the first entry with that hash (kNone if none;
  // it may not be the entry sought) to prefetch the entry itself.
  void prefetch(std::uint64_t hash) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[hash & mask_]);
  }
  std::size_t first(std::uint64_t hash) const {
    if (slots_.empty()) return kNone;
    for (std::size_t i = hash & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.position == kNone || s.hash == hash) return s.position;
    }
  }
  // Records an entry not in the index yet.
  void insert(std::uint64_t hash, std::size_t position) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    place(hash, position);
    ++size_;
  }
  void clear() {
    slots_.clear();
    mask_ = 0;
    size_ = 0;
  }
  std::size_t size() const { return size_; }

 private:
  struct Slot {
    std::uint64_t hash = 0;
    std::size_t position = kNone;
  };
  void place(std::uint64_t hash, std::size_t position) {
    std::size_t i = hash & mask_;
    while (slots_[i].position != kNone) i = (i + 1) & mask_;
    slots_[i] = {hash, position};
  }
  void grow() {
    std::vector<Slot> old(slots_.empty() ? 1024 : slots_.size() * 2);
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    for (const Slot& s : old)
      if (s.position != kNone) place(s.hash, s.position);
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;  // at most half the slots: probes stay short
};

// A 64-bit hash of bytes whose low bits (the slot) depend on every byte: 8 bytes a step, then a
// final mix (the finaliser of MurmurHash3, Appleby 2011).
inline std::uint64_t hash_bytes(const char* p, std::size_t n, std::uint64_t seed = 0) {
  std::uint64_t h = seed ^ (n * 0x9E3779B97F4A7C15ull);
  auto mix = [](std::uint64_t v) {
    v ^= v >> 33;
    v *= 0xFF51AFD7ED558CCDull;
    v ^= v >> 33;
    v *= 0xC4CEB9FE1A85EC53ull;
    v ^= v >> 33;
    return v;
  };
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w;
    __builtin_memcpy(&w, p + i, 8);
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
  }
  if (i < n) {
    std::uint64_t w = 0;
    __builtin_memcpy(&w, p + i, n - i);
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
  }
  return mix(h);
}

}  // namespace aicost::store
