// The fixture of the ledger store contract tests (store_test.cc, store_query_test.cc): a fresh
// ledger on each backend, ingest, totals through the report path, and writable sample copies.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "aicost/billing/ingest.h"
#include "aicost/ledger/report.h"
#include "backends.h"
#include "ledger_test_support.h"

namespace aicost::testing {

inline const std::string kFocusSample = samples_dir() + "focus-sample-data/focus_sample.csv";

class StoreFixture : public BackendTest {
 protected:
  billing::IngestResult ingest(const std::string& path, bool replace = false) {
    billing::IngestOptions o;
    o.replace = replace;
    auto r = billing::ingest_file(store(), path, o);
    EXPECT_TRUE(r) << (r ? "" : r.error().what());
    return r ? *r : billing::IngestResult{};
  }

  // Totals per currency over everything loaded, through the report path.
  std::map<std::string, ledger::Sums> totals() { return ledger_totals(store()); }

  std::string temp_copy(const std::string& from, const std::string& name,
                        const std::string& append = "") {
    const auto to = files_.path() / (GetParam() + "-" + name);
    std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
    // The shared samples are read-only; the copy must take appends.
    std::filesystem::permissions(to, std::filesystem::perms::owner_write,
                                 std::filesystem::perm_options::add);
    if (!append.empty()) std::ofstream(to, std::ios::app) << append;
    return to.string();
  }

 private:
  TempDir files_{"aicost-src"};
};

}  // namespace aicost::testing
