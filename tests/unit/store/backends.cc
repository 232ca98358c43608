#include "backends.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sqlite3.h>

#include <cstdlib>

#include "aicost/ledger/report.h"
#include "aicost/store/open.h"

namespace aicost::testing {

FreshStore fresh_store(const std::string& backend) {
  if (backend == "postgresql") return fresh_postgres_store();
  FreshStore out;
  out.dir = std::make_shared<TempDir>("aicost-ledger");
  out.db = out.dir->file("ledger.db");
  auto s = store::open_store(out.db, {.mode = store::OpenMode::kCreate});
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

std::map<std::string, ledger::Sums> ledger_totals(ledger::Store& store) {
  auto rep = ledger::run_report(store, {});
  EXPECT_TRUE(rep) << (rep ? "" : rep.error().what());
  std::map<std::string, ledger::Sums> out;
  if (rep)
    for (const auto& t : rep->totals) out[t.currency] = t.sums;
  return out;
}

void expect_same_totals(const std::map<std::string, ledger::Sums>& a,
                        const std::map<std::string, ledger::Sums>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [c, s] : a) {
    ASSERT_TRUE(b.count(c)) << c;
    EXPECT_EQ(s.billed, b.at(c).billed) << c;
    EXPECT_EQ(s.effective, b.at(c).effective) << c;
    EXPECT_EQ(s.list, b.at(c).list) << c;
    EXPECT_EQ(s.rows, b.at(c).rows) << c;
  }
}

void exec(const std::string& backend, const std::string& db, const std::string& sql) {
  if (backend == "sqlite") {
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
    char* err = nullptr;
    EXPECT_EQ(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
    sqlite3_free(err);
    sqlite3_close(h);
    return;
  }
  PGconn* conn = PQconnectdb(db.c_str());
  PGresult* r = PQexec(conn, sql.c_str());
  EXPECT_TRUE(PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK)
      << PQerrorMessage(conn);
  PQclear(r);
  PQfinish(conn);
}

}  // namespace aicost::testing
