// An open-addressing hash index over entries kept elsewhere (a vector, an arena): each slot holds
// an entry's hash (or its low 32 bits) and its position, so a probe touches one compact array and
// looks at an entry only when the hashes match. The stores' per-row caches (string ids, the id
// rollup) live on it: node-based maps cost a cache miss or two per lookup once they hold millions
// of keys.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace aicost::store {

// `Tag` keeps the hash's low bits (all 64, or 32: then the index holds at most 2^32 - 1 entries
// in 2^32 slots), from which a slot is found again when the index grows; `Position` is the
// entry's. HashIndex (16-byte slots) serves the per-row caches; CompactHashIndex (8-byte slots)
// indexes millions of groups, where the slots are a fair part of the memory. A 32-bit tag shares
// its low bits with the slot, so it tells fewer entries apart: a probe then compares an entry
// that is not the one sought in about 1 of 2^(32 - log2 slots) cases.
template <class Tag, class Position>
class BasicHashIndex {
 public:
  static constexpr std::size_t kNone = ~std::size_t{0};

  // The position of the entry with `hash` for which `same(position)` holds, or kNone.
  template <class Same>
  std::size_t find(std::uint64_t hash, Same&& same) const {
    if (slots_.empty()) return kNone;
    const Tag t = static_cast<Tag>(hash);
    for (std::size_t i = hash & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.position == kEmpty) return kNone;
      if (s.tag == t && same(static_cast<std::size_t>(s.position))) return s.position;
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
    const Tag t = static_cast<Tag>(hash);
    for (std::size_t i = hash & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.position == kEmpty) return kNone;
      if (s.tag == t) return s.position;
    }
  }
  // Records an entry not in the index yet.
  void insert(std::uint64_t hash, std::size_t position) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    place(static_cast<Tag>(hash), static_cast<Position>(position));
    ++size_;
  }
  void clear() {
    std::vector<Slot>().swap(slots_);
    mask_ = 0;
    size_ = 0;
  }
  std::size_t size() const { return size_; }

 private:
  static constexpr Position kEmpty = static_cast<Position>(~Position{0});
  struct Slot {
    Tag tag = 0;
    Position position = kEmpty;
  };
  void place(Tag t, Position position) {
    std::size_t i = t & mask_;
    while (slots_[i].position != kEmpty) i = (i + 1) & mask_;
    slots_[i] = {t, position};
  }
  void grow() {
    std::vector<Slot> old(slots_.empty() ? 1024 : slots_.size() * 2);
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    for (const Slot& s : old)
      if (s.position != kEmpty) place(s.tag, s.position);
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;  // at most half the slots: probes stay short
};

using HashIndex = BasicHashIndex<std::uint64_t, std::size_t>;
using CompactHashIndex = BasicHashIndex<std::uint32_t, std::uint32_t>;

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
