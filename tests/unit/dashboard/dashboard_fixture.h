// The dashboard tests' server (tests/unit/dashboard/): the example governance ledger loaded into a
// fresh ledger, and `aicost serve` on a free loopback port over it, stopped when it goes (RAII).
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "aicost/api/api.h"
#include "aicost/billing/ingest.h"
#include "aicost/dashboard/server.h"
#include "aicost/store/open.h"
#include "temp_dir.h"

namespace aicost {

inline const std::string kSource = AICOST_SOURCE_DIR;
inline const std::string kGov = kSource + "/examples/governance/";
inline const std::string kAsOf = "2025-06-28";

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

#ifdef AICOST_BINARY
// The built CLI's standard output (or error) for `args`, run from `folder`; its exit code in *code.
inline std::string cli(const testing::TempDir& dir, const std::string& args, int* code = nullptr,
                       bool stderr_out = false, const std::string& folder = kSource) {
  const std::string out = dir.file("cli.out");
  const std::string redirect = stderr_out ? " >/dev/null 2>" + out : " >" + out + " 2>/dev/null";
  const int status =
      std::system(("cd " + folder + " && " + AICOST_BINARY + " " + args + redirect).c_str());
  if (code) *code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return slurp(out);
}
#endif

// The example governance ledger in a fresh folder, and a server on it, stopped when it goes.
class Dashboard {
 public:
  // `db`: the ledger to load and serve; "" a SQLite file in a fresh folder (a PostgreSQL URL must
  // name an empty schema, as testing::fresh_postgres_db gives).
  explicit Dashboard(const std::string& token = "", std::size_t max_body = 64 * 1024,
                     const std::string& db = "") {
    db_ = db.empty() ? dir_.file("gov.db") : db;
    {
      store::StoreOptions so;
      so.mode = store::OpenMode::kCreate;
      auto store = store::open_store(db_, so);
      EXPECT_TRUE(store) << store.error().what();
      for (const auto* f : {"focus-ai-lab-2025-05-06.csv", "dcgm-ai-lab-2025-06-26.prom"}) {
        auto r = billing::ingest_file(**store, kGov + f, {});
        EXPECT_TRUE(r) << r.error().what();
      }
    }
    std::filesystem::create_directories(dir_.file("plans"));
    std::filesystem::copy_file(kSource + "/examples/gpt3-175b-a100.yaml",
                               dir_.file("plans/gpt3.yaml"));
    dashboard::ServeOptions o;
    o.db = db_;
    o.budgets = kGov + "budgets.yaml";
    o.plans_dir = dir_.file("plans");
    o.host = "127.0.0.1";
    o.port = 0;
    o.token = token;
    o.max_body_bytes = max_body;
    o.as_of = kAsOf;
    auto cat = api::load_catalog({});
    EXPECT_TRUE(cat);
    o.catalog = std::move(*cat);
    auto s = dashboard::Server::bind(std::move(o));
    EXPECT_TRUE(s) << s.error().what();
    server_ = std::move(*s);
    thread_ = std::thread([this] { server_->run(); });
  }
  ~Dashboard() {
    server_->stop();
    thread_.join();
  }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", server_->port());
    c.set_read_timeout(120, 0);
    return c;
  }
  const testing::TempDir& dir() const { return dir_; }
  const std::string& db() const { return db_; }

 private:
  testing::TempDir dir_{"aicost-dashboard"};
  std::string db_;
  std::unique_ptr<dashboard::Server> server_;
  std::thread thread_;
};

}  // namespace aicost
