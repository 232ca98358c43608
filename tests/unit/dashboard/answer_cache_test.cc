// dashboard::AnswerCache: one making per request and state, shared by the callers that ask while
// it is made; a new state drops the old answers; failures of the server are not kept.
#include "aicost/dashboard/answer_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

namespace aicost::dashboard {
namespace {

Answer page(const std::string& body, int status = 200) { return Answer{status, "text/html", body}; }

TEST(AnswerCache, KeepsAnAnswerForItsRequestAndState) {
  AnswerCache cache;
  int calls = 0;
  const auto make = [&] { return page("made " + std::to_string(++calls)); };
  EXPECT_EQ(cache.get("s1", "/", make)->body, "made 1");
  EXPECT_EQ(cache.get("s1", "/", make)->body, "made 1");
  EXPECT_EQ(cache.get("s1", "/budgets", make)->body, "made 2");  // another request
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(cache.made(), 2u);
}

TEST(AnswerCache, ANewStateDropsTheOldAnswers) {
  AnswerCache cache;
  int calls = 0;
  const auto make = [&] { return page("made " + std::to_string(++calls)); };
  cache.get("s1", "/", make);
  cache.get("s1", "/budgets", make);
  EXPECT_EQ(cache.get("s2", "/", make)->body, "made 3");
  EXPECT_EQ(cache.get("s2", "/budgets", make)->body, "made 4");
  EXPECT_EQ(cache.get("s1", "/", make)->body, "made 5");  // the old state again is a new one too
}

TEST(AnswerCache, AnEmptyStateKeepsNothing) {
  AnswerCache cache;
  int calls = 0;
  const auto make = [&] { return page(std::to_string(++calls)); };
  cache.get("", "/", make);
  cache.get("", "/", make);
  EXPECT_EQ(calls, 2);
}

// Callers that ask while the answer is made wait for that one making: `make` holds until all 16
// callers have asked, and a little longer for them to reach get(). Were each caller to make its
// own, the ones that came in meanwhile would call `make` too. (One that came later still would
// find the kept answer: the test cannot fail with a cache that shares.)
TEST(AnswerCache, CallersThatComeTogetherShareOneMaking) {
  AnswerCache cache;
  std::atomic<int> calls{0}, asked{0};
  const auto make = [&] {
    ++calls;
    while (asked < 16) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return page("shared");
  };
  std::vector<std::thread> callers;
  std::vector<std::string> bodies(16);
  for (int i = 0; i < 16; ++i)
    callers.emplace_back([&, i] {
      ++asked;
      bodies[i] = cache.get("s", "/", make)->body;
    });
  for (auto& t : callers) t.join();
  EXPECT_EQ(calls, 1);
  for (const auto& b : bodies) EXPECT_EQ(b, "shared");
}

TEST(AnswerCache, AServerFailureIsNotKept) {
  AnswerCache cache;
  int calls = 0;
  EXPECT_EQ(cache.get("s", "/", [&] { return page("busy", ++calls == 1 ? 500 : 200); })->status,
            500);
  EXPECT_EQ(cache.get("s", "/", [&] { return page("ok", ++calls == 1 ? 500 : 200); })->status, 200);
  EXPECT_EQ(calls, 2);
  // A request's own mistake (4xx) is an answer like another: kept.
  EXPECT_EQ(cache.get("s", "/x", [&] { return page("bad", 400 + ++calls); })->status, 403);
  EXPECT_EQ(cache.get("s", "/x", [&] { return page("bad", 400 + ++calls); })->status, 403);
}

TEST(AnswerCache, AnExceptionReachesTheCallerAndIsNotKept) {
  AnswerCache cache;
  EXPECT_THROW(cache.get("s", "/", []() -> Answer { throw std::runtime_error("no"); }),
               std::runtime_error);
  EXPECT_EQ(cache.get("s", "/", [] { return page("ok"); })->body, "ok");
}

TEST(AnswerCache, KeepsNoMoreThanItsBound) {
  AnswerCache cache(3);
  int calls = 0;
  const auto make = [&] { return page(std::to_string(++calls)); };
  for (const char* r : {"/a", "/b", "/c"}) cache.get("s", r, make);
  EXPECT_EQ(calls, 3);
  cache.get("s", "/d", make);  // past the bound: the kept ones go, /d is kept
  EXPECT_EQ(calls, 4);
  cache.get("s", "/d", make);
  EXPECT_EQ(calls, 4);
  cache.get("s", "/a", make);
  EXPECT_EQ(calls, 5);
}

}  // namespace
}  // namespace aicost::dashboard
