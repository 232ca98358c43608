#include "backends.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>

#include "aicost/store/open.h"

namespace aicost::testing {

FreshStore fresh_store(const std::string& backend) {
  if (backend == "postgresql") return fresh_postgres_store();
  static std::atomic<int> counter{0};
  const auto dir = std::filesystem::path(::testing::TempDir()) /
                   ("aicost-ledger-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  std::filesystem::remove_all(dir);
  FreshStore out;
  out.db = (dir / "ledger.db").string();
  auto s = store::open_store(out.db);
  if (!s) {
    ADD_FAILURE() << s.error().what();
    return out;
  }
  out.store = std::move(*s);
  return out;
}

void BackendTest::SetUp() {
  fresh_ = fresh_store(GetParam());
  if (!fresh_.skip_reason.empty()) {
    if (const char* req = std::getenv("AICOST_TEST_PG_REQUIRED"); req && std::string(req) == "1")
      FAIL() << "PostgreSQL is required here: " << fresh_.skip_reason;
    GTEST_SKIP() << fresh_.skip_reason;
  }
  ASSERT_TRUE(fresh_.store);
}

}  // namespace aicost::testing
