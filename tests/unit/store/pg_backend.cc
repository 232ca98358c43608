// The PostgreSQL side of the store suite: each test gets its own schema on the server that
// $AICOST_TEST_PG_URL names, so test processes can run in parallel against one server.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "aicost/store/open.h"
#include "backends.h"

namespace aicost::testing {
namespace {

// The admin connection that creates the schemas, and drops them when the test process exits.
class Schemas {
 public:
  ~Schemas() {
    if (!conn_) return;
    for (const auto& s : created_)
      PQclear(PQexec(conn_, ("DROP SCHEMA IF EXISTS " + s + " CASCADE").c_str()));
    PQfinish(conn_);
  }

  // A new, empty schema's quoted name, or an error message.
  bool create(const std::string& url, std::string& name, std::string& error) {
    std::lock_guard lock(mu_);
    if (!conn_) {
      conn_ = PQconnectdb(url.c_str());
      if (PQstatus(conn_) != CONNECTION_OK) {
        error = std::string("cannot connect to $AICOST_TEST_PG_URL (") + store::redact(url) +
                "): " + PQerrorMessage(conn_);
        PQfinish(conn_);
        conn_ = nullptr;
        return false;
      }
      PQsetNoticeProcessor(
          conn_, [](void*, const char*) {}, nullptr);
    }
    // pid + start time + counter: unique across parallel processes and reruns that reuse a pid.
    static const auto started = std::chrono::duration_cast<std::chrono::microseconds>(
                                    std::chrono::system_clock::now().time_since_epoch())
                                    .count();
    name = "t_" + std::to_string(::getpid()) + "_" + std::to_string(started) + "_" +
           std::to_string(counter_++);
    PGresult* r = PQexec(conn_, ("CREATE SCHEMA " + name).c_str());
    const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    if (!ok) error = "cannot create schema " + name + ": " + PQresultErrorMessage(r);
    PQclear(r);
    if (ok) created_.push_back(name);
    return ok;
  }

 private:
  std::mutex mu_;
  PGconn* conn_ = nullptr;
  int counter_ = 0;
  std::vector<std::string> created_;
};

}  // namespace

FreshDb fresh_postgres_db() {
  FreshDb out;
  const char* url = std::getenv("AICOST_TEST_PG_URL");
  if (!url || !*url) {
    out.skip_reason = "$AICOST_TEST_PG_URL is not set (`make test` starts a server and sets it)";
    return out;
  }
  static Schemas schemas;
  std::string schema, error;
  if (!schemas.create(url, schema, error)) {
    ADD_FAILURE() << error;
    return out;
  }
  // libpq URI parameter: the server starts every session of this store with search_path=<schema>.
  const std::string base = url;
  out.db = base + (base.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" +
           schema;
  return out;
}

FreshStore fresh_postgres_store() {
  FreshStore out;
  const auto fresh = fresh_postgres_db();
  out.db = fresh.db;
  out.skip_reason = fresh.skip_reason;
  if (out.db.empty()) return out;
  auto s = store::open_store(out.db, {.mode = store::OpenMode::kCreate});
  if (!s) {
    ADD_FAILURE() << s.error().what();
    return out;
  }
  out.store = std::move(*s);
  return out;
}

}  // namespace aicost::testing
