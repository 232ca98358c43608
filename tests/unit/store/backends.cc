#include "backends.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

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

ledger::Store& BackendTest::store() {
  if (!fresh_.store) throw std::runtime_error("no open store: an earlier step failed");
  return *fresh_.store;
}

void BackendTest::reopen() {
  fresh_.store.reset();
  auto s = store::open_store(fresh_.db);
  ASSERT_TRUE(s) << s.error().what();
  fresh_.store = std::move(*s);
}

std::int64_t BackendTest::load(const std::string& name, const std::vector<ledger::Charge>& rows,
                               const std::vector<std::int64_t>& replace) {
  // A digest of 64 characters that differs by name.
  const std::string digest = std::string(64 - std::min<std::size_t>(name.size(), 64), '0') + name;
  ledger::SourceFile f{"/generated/" + name, digest.substr(0, 64), 1, "focus-1.2"};
  auto begun = store().begin_source(f, replace);
  EXPECT_TRUE(begun) << begun.error().what();
  EXPECT_TRUE(store().add_charges(rows));
  auto r = store().commit_source("focus-1.2", 0);
  EXPECT_TRUE(r) << r.error().what();
  return r ? r->id : 0;
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

std::vector<std::string> rows_of(const std::string& backend, const std::string& db,
                                 const std::string& sql) {
  std::vector<std::string> out;
  if (backend == "sqlite") {
    sqlite3* conn = nullptr;
    EXPECT_EQ(sqlite3_open(db.c_str(), &conn), SQLITE_OK);
    char* err = nullptr;
    auto add = [](void* v, int n, char** cells, char**) {
      std::string row;
      for (int c = 0; c < n; ++c) row += (c ? "|" : "") + std::string(cells[c] ? cells[c] : "");
      static_cast<std::vector<std::string>*>(v)->push_back(row);
      return 0;
    };
    EXPECT_EQ(sqlite3_exec(conn, sql.c_str(), add, &out, &err), SQLITE_OK) << (err ? err : "");
    sqlite3_free(err);
    sqlite3_close(conn);
    return out;
  }
  PGconn* conn = PQconnectdb(db.c_str());
  PGresult* r = PQexec(conn, sql.c_str());
  EXPECT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQerrorMessage(conn);
  for (int i = 0; i < PQntuples(r); ++i) {
    std::string row;
    for (int c = 0; c < PQnfields(r); ++c) row += (c ? "|" : "") + std::string(PQgetvalue(r, i, c));
    out.push_back(row);
  }
  PQclear(r);
  PQfinish(conn);
  return out;
}

namespace {
std::string decimal(core::WideNanos v) {
  const bool negative = v < 0;
  std::string out;
  do {
    out += static_cast<char>('0' + (negative ? -(v % 10) : v % 10));
    v /= 10;
  } while (v != 0);
  if (negative) out += '-';
  return {out.rbegin(), out.rend()};
}
}  // namespace

std::vector<std::string> listed_source_totals(ledger::Store& store) {
  auto sources = store.sources();
  EXPECT_TRUE(sources) << (sources ? "" : sources.error().what());
  std::vector<std::string> out;
  if (sources)
    for (const auto& s : *sources)
      for (const auto& t : s.totals)
        out.push_back(std::to_string(s.id) + "|" + t.currency + "|" + decimal(t.billed) + "|" +
                      decimal(t.effective));
  return out;
}

std::vector<std::string> charged_source_totals(const std::string& backend, const std::string& db) {
  // Currencies are ASCII letters: any collation orders them as bytes do.
  return rows_of(backend, db,
                 "SELECT c.source_id, s.value, SUM(c.billed), SUM(c.effective) FROM charges c JOIN "
                 "strings s ON s.id = c.currency_sid GROUP BY c.source_id, s.value ORDER BY "
                 "c.source_id, s.value");
}

}  // namespace aicost::testing
