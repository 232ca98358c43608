#include "aicost/core/suggest.h"

#include <gtest/gtest.h>

namespace aicost::core {
namespace {

TEST(EditDistance, ClassicKittenSitting) {
  // kitten -> sitten (sub) -> sittin (sub) -> sitting (insert) = 3.
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3);
}

TEST(EditDistance, EmptyStringIsLengthOfOther) {
  EXPECT_EQ(edit_distance("", "abc"), 3);
  EXPECT_EQ(edit_distance("abcd", ""), 4);
  EXPECT_EQ(edit_distance("", ""), 0);
}

TEST(EditDistance, CaseInsensitive) { EXPECT_EQ(edit_distance("GiB", "gib"), 0); }

TEST(EditDistance, SingleEdits) {
  EXPECT_EQ(edit_distance("tensor", "tenor"), 1);    // deletion
  EXPECT_EQ(edit_distance("tensor", "tensors"), 1);  // insertion
  EXPECT_EQ(edit_distance("tensor", "tansor"), 1);   // substitution
}

TEST(ClosestMatch, PicksNearestWithinThreshold) {
  // "pipelin" is 1 edit from "pipeline", 7+ from "tensor".
  auto m = closest_match("pipelin", {"tensor", "pipeline"});
  ASSERT_TRUE(m);
  EXPECT_EQ(*m, "pipeline");
}

TEST(ClosestMatch, RejectsBeyondThreshold) {
  // |word| = 3 -> limit max(2, 1) = 2; "abc" vs "xyz" is 3 -> no match.
  EXPECT_FALSE(closest_match("abc", {"xyz"}));
  // distance 2 is within the limit of 2.
  EXPECT_TRUE(closest_match("abc", {"axy"}));
}

TEST(ClosestMatch, ThresholdGrowsWithLength) {
  // |word| = 12 -> limit 4. "micro_batchx" vs ... construct 4 and 5 edits.
  // "abcdefghijkl" vs "abcdefghWXYZ": 4 substitutions -> accepted; 5 -> rejected.
  EXPECT_TRUE(closest_match("abcdefghijkl", {"abcdefghWXYZ"}));
  EXPECT_FALSE(closest_match("abcdefghijkl", {"abcdefgVWXYZ"}));
}

TEST(ClosestMatch, TieGoesToEarlierCandidate) {
  // "cat" is 1 from both "bat" and "car".
  auto m = closest_match("cat", {"bat", "car"});
  ASSERT_TRUE(m);
  EXPECT_EQ(*m, "bat");
}

TEST(DidYouMean, FormatsSuggestionOrNothing) {
  EXPECT_EQ(did_you_mean("tensr", {"tensor"}), " Did you mean 'tensor'?");
  EXPECT_EQ(did_you_mean("zzzzzz", {"tensor"}), "");
}

}  // namespace
}  // namespace aicost::core
