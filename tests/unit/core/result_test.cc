#include "aicost/core/result.h"

#include <gtest/gtest.h>

namespace aicost::core {
namespace {

// An error at a place in a file keeps the place as numbers (for `-o json`) and as text (for
// people), and keeps both when it travels outwards with more context.
TEST(ErrorLocation, FieldsTextAndExcerptSurviveAddedContext) {
  const Error e = make_error_at(ErrorCode::kParse, "unknown key 'gpuz'",
                                {"plan.yaml", 14, 5, "    gpuz: 8\n    ^"});
  EXPECT_EQ(e.context, "plan.yaml:14:5");
  EXPECT_EQ(e.message, "unknown key 'gpuz'");
  EXPECT_EQ(e.what(), "plan.yaml:14:5: unknown key 'gpuz'\n    gpuz: 8\n    ^");

  const Error outer = e.with_context("--catalog");
  EXPECT_EQ(outer.context, "--catalog: plan.yaml:14:5");
  ASSERT_TRUE(outer.location.has_value());
  EXPECT_EQ(outer.location->file, "plan.yaml");  // not "--catalog: plan.yaml"
  EXPECT_EQ(outer.location->line, 14);
  EXPECT_EQ(outer.location->column, 5);
}

TEST(ErrorLocation, ALineWithoutAColumnAndAnErrorWithoutAPlace) {
  EXPECT_EQ(make_error_at(ErrorCode::kParse, "bad row", {"runs.csv", 3, 0, ""}).what(),
            "runs.csv:3: bad row");
  EXPECT_EQ(make_error_at(ErrorCode::kIo, "cannot read", {"runs.csv", 0, 0, ""}).context,
            "runs.csv");
  const Error plain = make_error(ErrorCode::kInvalidInput, "negative size", "-o");
  EXPECT_FALSE(plain.location.has_value());
  EXPECT_EQ(plain.what(), "-o: negative size");
}

}  // namespace
}  // namespace aicost::core
