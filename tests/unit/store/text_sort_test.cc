// Texts sorted eight bytes at a time (src/store/text_sort.h) against std::sort by
// std::string_view's order: prefixes, bytes 0x00 and 0xff, texts ending on and around the
// 8-byte boundaries, long shared prefixes (ARNs), equal texts, and TextIds::order over them.
#include "text_sort.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "group_fold.h"

namespace aicost::store {
namespace {

// The items 0..n-1 of `texts` in the order sort_by_text gives, as texts.
std::vector<std::string> sorted(const std::vector<std::string>& texts) {
  std::vector<std::uint32_t> items(texts.size());
  std::iota(items.begin(), items.end(), 0u);
  sort_by_text(items, [&](std::uint32_t i) { return std::string_view(texts[i]); });
  std::vector<std::string> out;
  for (auto i : items) out.push_back(texts[i]);
  return out;
}

std::vector<std::string> by_std_sort(std::vector<std::string> texts) {
  std::sort(texts.begin(), texts.end(), [](const std::string& a, const std::string& b) {
    return std::string_view(a) < std::string_view(b);
  });
  return texts;
}

TEST(TextSort, EdgesOfTheEightByteSteps) {
  using namespace std::string_literals;
  const std::vector<std::string> texts = {"",
                                          "a",
                                          "ab",
                                          "ab\0"s,
                                          "ab\0\0\0\0\0\0"s,
                                          "ab\0\0\0\0\0\0\0"s,
                                          "ab\0\0\0\0\0\0\x01"s,
                                          "abcdefgh",
                                          "abcdefg",
                                          "abcdefghi",
                                          "abcdefgh\0"s,
                                          "abcdefgh\xff",
                                          "\xff",
                                          "\xff\xff",
                                          "\x7f",
                                          "\x80",
                                          "abcdefghabcdefgh",
                                          "abcdefghabcdefg",
                                          "abcdefghabcdefgh\0"s,
                                          "b",
                                          "B",
                                          "ab"};  // "ab" twice: equal texts
  EXPECT_EQ(sorted(texts), by_std_sort(texts));
  // Equal texts come by item number.
  std::vector<std::uint32_t> items = {5, 2, 4, 0, 3, 1};
  const std::vector<std::string> same = {"x", "arn:aws:s3:::same-bucket",
                                         "x", "arn:aws:s3:::same-bucket",
                                         "x", "arn:aws:s3:::same-bucket"};
  sort_by_text(items, [&](std::uint32_t i) { return std::string_view(same[i]); });
  EXPECT_EQ(items, (std::vector<std::uint32_t>{1, 3, 5, 0, 2, 4}));
  std::vector<std::uint32_t> none;
  sort_by_text(none, [&](std::uint32_t i) { return std::string_view(same[i]); });
  EXPECT_TRUE(none.empty());
}

TEST(TextSort, RandomTextsAndSharedPrefixesAsStdSort) {
  std::mt19937_64 rng(20261203);
  for (int round = 0; round < 20; ++round) {
    std::vector<std::string> texts;
    const std::string prefixes[] = {"", "arn:aws:ec2:us-east-1:123456789012:instance/i-0",
                                    "arn:aws:ec2:us-east-1:123456789012:volume/vol-0", "i-0"};
    const int n = 1 + static_cast<int>(rng() % 3000);
    for (int k = 0; k < n; ++k) {
      std::string t = prefixes[rng() % 4];
      const std::size_t len = rng() % 20;
      // A small alphabet (ties run deep) with 0x00 and 0xff among it.
      for (std::size_t b = 0; b < len; ++b)
        t += "\0\x01"
             "ab\xff"[rng() % 5];
      texts.push_back(std::move(t));
    }
    ASSERT_EQ(sorted(texts), by_std_sort(texts)) << "round " << round;
  }
}

TEST(TextSort, TextIdsOrderIsTextOrder) {
  TextIds ids;
  std::vector<std::string> texts;
  for (int k = 0; k < 5000; ++k)
    texts.push_back("arn:ats:sqs:us-test-2:347410479675:queue-" + std::to_string(k * 7919 % 5003));
  texts.push_back("");
  texts.push_back("i-0");
  for (const auto& t : texts) ids.id(t);
  ASSERT_EQ(ids.size(), texts.size());
  const auto& order = ids.order();
  ASSERT_EQ(order.size(), texts.size());
  for (std::size_t r = 1; r < order.size(); ++r)
    EXPECT_LT(ids.text(-static_cast<std::int64_t>(order[r - 1]) - 1),
              ids.text(-static_cast<std::int64_t>(order[r]) - 1));
}

}  // namespace
}  // namespace aicost::store
