// A child process that ingests a file and is killed mid-transaction (kill -9), for the tests that
// a ledger keeps what it had before: the ingest's test hook AICOST_TEST_KILL_AFTER_ROWS raises
// SIGKILL once that many rows went to the store (src/billing/ingest.cc).
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <string>

#include "aicost/billing/ingest.h"
#include "aicost/store/open.h"

namespace aicost::testing {

// Ingests `path` into the ledger at `db` in a forked child killed after `rows` rows, and checks
// that it died of SIGKILL. Call it with ASSERT_NO_FATAL_FAILURE.
inline void ingest_killed_after(const std::string& db, const std::string& path,
                                const billing::IngestOptions& opts, const char* rows = "500") {
  const pid_t child = ::fork();
  ASSERT_NE(child, -1);
  if (child == 0) {
    ::setenv("AICOST_TEST_KILL_AFTER_ROWS", rows, 1);
    auto s = store::open_store(db);
    if (!s) ::_exit(3);
    (void)billing::ingest_file(**s, path, opts);
    ::_exit(4);  // not reached: the hook kills the child first
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
}

}  // namespace aicost::testing
