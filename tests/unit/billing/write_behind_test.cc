// WriteBehind (src/billing/write_behind.h): jobs run one at a time in order, the first failure
// stops the rest and is what every later call returns, a thrown exception reaches the caller.
#include "write_behind.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

namespace aicost::billing {
namespace {

core::Status failed(const char* what) {
  return core::make_error(core::ErrorCode::kIo, what, "store");
}

class WriteBehindTest : public ::testing::TestWithParam<bool> {};

TEST_P(WriteBehindTest, JobsRunOnceEachInOrder) {
  std::vector<int> ran;
  {
    WriteBehind w(GetParam());
    EXPECT_EQ(w.threaded(), GetParam());
    for (int i = 0; i < 200; ++i) {
      ASSERT_TRUE(w.submit([&ran, i] {
        ran.push_back(i);
        return core::Status{};
      }));
      ASSERT_TRUE(w.wait(2));
    }
    EXPECT_TRUE(w.wait());
    ASSERT_EQ(ran.size(), 200u);  // all done once wait() returns
  }
  for (int i = 0; i < 200; ++i) EXPECT_EQ(ran[static_cast<std::size_t>(i)], i);
}

TEST_P(WriteBehindTest, FirstFailureStopsTheRestAndIsReturnedFromThenOn) {
  WriteBehind w(GetParam());
  std::atomic<int> after{0};
  ASSERT_TRUE(w.submit([] { return core::Status{}; }));
  auto second = w.submit([] { return failed("disk full"); });
  EXPECT_TRUE(second || !GetParam());  // threaded: queued; unthreaded: run, and failed
  (void)w.submit([&] {
    ++after;
    return failed("later");
  });
  auto s = w.wait();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "disk full");
  EXPECT_EQ(after.load(), 0);  // dropped: it came after the failure
  auto again = w.submit([&] {
    ++after;
    return core::Status{};
  });
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().message, "disk full");
  EXPECT_EQ(after.load(), 0);
}

TEST_P(WriteBehindTest, AnExceptionReachesTheCaller) {
  WriteBehind w(GetParam());
  if (!GetParam()) {
    EXPECT_THROW((void)w.submit([]() -> core::Status { throw std::runtime_error("bad_alloc"); }),
                 std::runtime_error);
    return;
  }
  ASSERT_TRUE(w.submit([]() -> core::Status { throw std::runtime_error("bad_alloc"); }));
  EXPECT_THROW((void)w.wait(), std::runtime_error);
}

TEST_P(WriteBehindTest, DestructorWaitsForQueuedJobs) {
  std::atomic<int> ran{0};
  {
    WriteBehind w(GetParam());
    for (int i = 0; i < 50; ++i)
      ASSERT_TRUE(w.submit([&] {
        ++ran;
        return core::Status{};
      }));
  }
  EXPECT_EQ(ran.load(), 50);
}

INSTANTIATE_TEST_SUITE_P(Modes, WriteBehindTest, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "threaded" : "inline"; });

}  // namespace
}  // namespace aicost::billing
