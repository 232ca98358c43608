#include "aicost/optimize/change.h"

#include <gtest/gtest.h>

namespace aicost::optimize {
namespace {

TEST(Change, MergeKeepsFirstPlaceAndLastValue) {
  const Change a = {{"storage.checkpoint_interval", "49min"}, {"training.precision", "fp8"}};
  const Change b = {{"pricing.mode", "spot"}, {"storage.checkpoint_interval", "31min"}};
  const Change m = merge(a, b);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0], (Edit{"storage.checkpoint_interval", "31min"}));
  EXPECT_EQ(m[1], (Edit{"training.precision", "fp8"}));
  EXPECT_EQ(m[2], (Edit{"pricing.mode", "spot"}));
}

TEST(Change, MergeCanRemoveAKeyAnEarlierEditSet) {
  const Change m = merge({{"pricing.gpu_hour", "2USD/h"}}, {{"pricing.gpu_hour", std::nullopt}});
  ASSERT_EQ(m.size(), 1u);
  EXPECT_FALSE(m[0].value.has_value());
}

TEST(Change, DescribeListsEditsInOrder) {
  EXPECT_EQ(describe({{"training.precision", "fp8"}, {"pricing.gpu_hour", std::nullopt}}),
            "training.precision: fp8; pricing.gpu_hour: (removed)");
  EXPECT_EQ(describe({}), "");
}

}  // namespace
}  // namespace aicost::optimize
