// Texts put in order eight bytes at a time (TextIds::order, GroupFold::Walk::start). A comparison
// sort of hundreds of thousands of resource ids reads both texts at every comparison, each from
// its own place in memory, and compares the long prefixes they share (ARNs: the same 40 bytes
// for every resource of a service and account) again each time: on the 30M-charge ledger
// benchmark, sorting the waste scan's 0.6M resource ids was about 5 % of `ledger check` (perf,
// TextIds::order). Here each level reads the next 8 bytes of the texts still tied, once, as one
// integer beside the item, and sorts those integers; only the runs that tie on every byte so far
// go one level deeper.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

namespace aicost::store {

// Sorts `items` by text(item), in std::string_view's order (bytes as unsigned, a prefix before
// its longer texts); items with equal texts by number. `text` returns a std::string_view that
// stays valid through the sort.
template <typename Text>
void sort_by_text(std::span<std::uint32_t> items, const Text& text) {
  struct Key {
    std::uint64_t chunk;  // the text's bytes [depth, depth + 8), big-endian, zeros past its end
    std::uint32_t left;   // its bytes from depth on, 9 when more than 8
    std::uint32_t item;
  };
  // Runs of keys tied on their first `depth` bytes (all of them longer than depth).
  struct Run {
    std::size_t begin, end, depth;
  };
  std::vector<Key> keys(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) keys[i].item = items[i];
  std::vector<Run> runs;
  if (keys.size() > 1) runs.push_back({0, keys.size(), 0});
  while (!runs.empty()) {
    const Run r = runs.back();
    runs.pop_back();
    for (std::size_t i = r.begin; i < r.end; ++i) {
      const std::string_view t = text(keys[i].item);
      const std::size_t left = t.size() - r.depth;
      unsigned char bytes[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      std::memcpy(bytes, t.data() + r.depth, std::min<std::size_t>(left, 8));
      std::uint64_t chunk = 0;
      for (const unsigned char b : bytes) chunk = chunk << 8 | b;
      keys[i].chunk = chunk;
      keys[i].left = static_cast<std::uint32_t>(std::min<std::size_t>(left, 9));
    }
    // Equal chunks: the text that ends in them first (zeros past an end tie with zero bytes).
    std::sort(keys.begin() + static_cast<std::ptrdiff_t>(r.begin),
              keys.begin() + static_cast<std::ptrdiff_t>(r.end), [](const Key& a, const Key& b) {
                if (a.chunk != b.chunk) return a.chunk < b.chunk;
                if (a.left != b.left) return a.left < b.left;
                return a.item < b.item;
              });
    for (std::size_t i = r.begin; i < r.end;) {
      std::size_t j = i + 1;
      while (j < r.end && keys[j].chunk == keys[i].chunk && keys[j].left == keys[i].left) ++j;
      // Tied texts that go on are told apart further on; those that end here are equal.
      if (keys[i].left == 9 && j - i > 1) runs.push_back({i, j, r.depth + 8});
      i = j;
    }
  }
  for (std::size_t i = 0; i < keys.size(); ++i) items[i] = keys[i].item;
}

}  // namespace aicost::store
