// open_store: only OpenMode::kCreate makes a ledger (a typo in --db is an error with a
// did-you-mean, never an empty ledger that reports 0 spent); a libpq keyword=value string is
// PostgreSQL, not a file; passwords are hidden in every form; new files are private.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>

#include "aicost/billing/ingest.h"
#include "aicost/store/open.h"
#include "backends.h"
#include "ledger_test_support.h"
#include "temp_dir.h"

namespace aicost {
namespace {

namespace fs = std::filesystem;

unsigned mode_of(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? (st.st_mode & 0777) : 0;
}

TEST(OpenStore, AMissingSqliteLedgerIsAnErrorThatOffersTheNearestOne) {
  testing::TempDir dir("aicost-open");
  ASSERT_TRUE(store::open_store(dir.file("ledger.db"), {.mode = store::OpenMode::kCreate}));
  dir.write("notes.txt", "not a ledger");
  auto typo = store::open_store(dir.file("ledgr.db"));
  ASSERT_FALSE(typo);
  EXPECT_EQ(typo.error().code, core::ErrorCode::kNotFound);
  EXPECT_NE(typo.error().message.find("there is no ledger here. Did you mean '" +
                                      (dir.file("ledger.db")) + "'?"),
            std::string::npos)
      << typo.error().what();
  EXPECT_NE(typo.error().message.find("aicost ledger ingest FILE"), std::string::npos)
      << typo.error().what();
  EXPECT_FALSE(fs::exists(dir.file("ledgr.db")));
  // Nothing near: no guess; a missing folder is not made.
  auto far = store::open_store(dir.file("sub/elsewhere.db"));
  ASSERT_FALSE(far);
  EXPECT_EQ(far.error().message.find("Did you mean"), std::string::npos) << far.error().what();
  EXPECT_NE(far.error().message.find("does not exist either"), std::string::npos)
      << far.error().what();
  EXPECT_FALSE(fs::exists(dir.file("sub")));
}

TEST(OpenStore, AnEmptyOrForeignSqliteFileIsNotTakenForALedger) {
  testing::TempDir dir("aicost-open");
  dir.write("empty.db", "");
  auto empty = store::open_store(dir.file("empty.db"));
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("not an aicost ledger yet"), std::string::npos)
      << empty.error().what();
  // init makes it one.
  ASSERT_TRUE(store::open_store(dir.file("empty.db"), {.mode = store::OpenMode::kCreate}));
  EXPECT_TRUE(store::open_store(dir.file("empty.db")));
}

TEST(OpenStore, ANewLedgerIsReportedOnceAndIsPrivate) {
  testing::TempDir dir("aicost-open");
  const auto db = dir.file("a/b/ledger.db");
  int created = 0;
  std::string where;
  auto on_create = [&](const std::string& w) { ++created, where = w; };
  {
    auto s = store::open_store(db, {.mode = store::OpenMode::kCreate, .on_create = on_create});
    ASSERT_TRUE(s) << s.error().what();
    EXPECT_EQ(created, 1);
    EXPECT_EQ(where, db);
    EXPECT_EQ(mode_of(dir.file("a")), 0700u);
    EXPECT_EQ(mode_of(dir.file("a/b")), 0700u);
    EXPECT_EQ(mode_of(db), 0600u);
    // The log and its index take the file's mode; so does the lock an ingest holds.
    auto r = billing::ingest_file(
        **s, testing::samples_dir() + "focus-sample-data/focus_sample.csv", {});
    ASSERT_TRUE(r) << r.error().what();
    EXPECT_EQ(mode_of(db + "-wal"), 0600u);
    EXPECT_EQ(mode_of(db + "-shm"), 0600u);
    ASSERT_TRUE((*s)->begin_source({"/data/x.csv", std::string(64, 'x'), 1, "focus-1.2"}, {}));
    EXPECT_EQ(mode_of(db + ".lock"), 0600u);
    (*s)->rollback();
    EXPECT_FALSE(fs::exists(db + ".lock"));  // gone with the lock
  }
  ASSERT_TRUE(store::open_store(db, {.mode = store::OpenMode::kCreate, .on_create = on_create}));
  EXPECT_EQ(created, 1);  // there already
}

// Two first ingests at once: both open the new ledger, and only the one that made its tables says
// it made it (the other finds them made once it has the lock). Ten rounds of a race.
TEST(OpenStore, TwoOpensMakingOneLedgerAtOnceSayItOnce) {
  for (int round = 0; round < 10; ++round) {
    testing::TempDir dir("aicost-open");
    const auto db = dir.file("ledger.db");
    std::atomic<int> made{0};
    auto open = [&] {
      return store::open_store(
          db, {.mode = store::OpenMode::kCreate, .on_create = [&](const std::string&) { ++made; }});
    };
    auto a = std::async(std::launch::async, open), b = std::async(std::launch::async, open);
    auto x = a.get(), y = b.get();
    ASSERT_TRUE(x) << x.error().what();
    ASSERT_TRUE(y) << y.error().what();
    EXPECT_EQ(made.load(), 1) << "round " << round;
  }
}

TEST(OpenStore, AnExistingLedgerKeepsItsMode) {
  testing::TempDir dir("aicost-open");
  const auto db = dir.file("shared.db");
  ASSERT_TRUE(store::open_store(db, {.mode = store::OpenMode::kCreate}));
  ASSERT_EQ(::chmod(db.c_str(), 0640), 0);
  ASSERT_TRUE(store::open_store(db, {.mode = store::OpenMode::kCreate}));
  EXPECT_EQ(mode_of(db), 0640u);
}

TEST(OpenStore, KeywordValueStringsArePostgres) {
  EXPECT_TRUE(store::is_postgres_url("host=db1 dbname=ledger user=me"));
  EXPECT_TRUE(store::is_postgres_url("  dbname = ledger"));
  EXPECT_TRUE(store::is_postgres_url("postgresql://u@h/db"));
  EXPECT_TRUE(store::is_postgres_url("postgres://u@h/db"));
  EXPECT_FALSE(store::is_postgres_url("ledger.db"));
  EXPECT_FALSE(store::is_postgres_url("./run=1/ledger.db"));
  EXPECT_FALSE(store::is_postgres_url("/data/run=1/ledger.db"));
}

// A connection string that reaches no server: an error, with the password nowhere in it, and no
// file or folder made (it was taken for a SQLite path, named after the password).
// Runs the test in `dir`, and back where it was however the test ends.
class InFolder {
 public:
  explicit InFolder(const fs::path& dir) : was_(fs::current_path()) { fs::current_path(dir); }
  ~InFolder() { fs::current_path(was_); }

 private:
  fs::path was_;
};

TEST(OpenStore, AnUnreachableConnectionStringMakesNoFileAndHidesThePassword) {
  testing::TempDir dir("aicost-open");
  const InFolder in(dir.path());
  for (const std::string db :
       {"host=127.0.0.1 port=1 dbname=ledger user=me password=Sup3rSecret/x connect_timeout=2",
        "postgresql://me:Sup3rSecret@127.0.0.1:1/ledger?connect_timeout=2",
        "postgresql://me@127.0.0.1:1/ledger?password=Sup3rSecret&connect_timeout=2"}) {
    auto s = store::open_store(db, {.mode = store::OpenMode::kCreate});
    ASSERT_FALSE(s) << db;
    EXPECT_EQ(s.error().what().find("Sup3rSecret"), std::string::npos) << s.error().what();
    EXPECT_NE(s.error().what().find("***"), std::string::npos) << s.error().what();
  }
  // A keyword libpq does not know: refused as a connection string, not made a file.
  auto bad = store::open_store("a=b.db password=Sup3rSecret", {.mode = store::OpenMode::kCreate});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, core::ErrorCode::kInvalidInput);
  EXPECT_NE(bad.error().message.find("./NAME"), std::string::npos) << bad.error().what();
  EXPECT_EQ(bad.error().what().find("Sup3rSecret"), std::string::npos) << bad.error().what();
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(OpenStore, RedactHidesThePasswordInEveryForm) {
  EXPECT_EQ(store::redact("postgresql://u:pw@h:5432/db"), "postgresql://u:***@h:5432/db");
  EXPECT_EQ(store::redact("postgresql://u:p@w/x@h/db"), "postgresql://u:***@h/db");
  EXPECT_EQ(store::redact("postgresql://u@h/db?sslmode=require&password=pw&x=1"),
            "postgresql://u@h/db?sslmode=require&password=***&x=1");
  EXPECT_EQ(store::redact("postgres://h/db?pass%77ord=pw"), "postgres://h/db?pass%77ord=***");
  EXPECT_EQ(store::redact("host=h password=pw dbname=d"), "host=h password=*** dbname=d");
  EXPECT_EQ(store::redact("host=h password = 'p w\\'x' dbname=d"),
            "host=h password = *** dbname=d");
  EXPECT_EQ(store::redact("host=h sslpassword=k"), "host=h sslpassword=***");
  EXPECT_EQ(store::redact("/data/ledger.db"), "/data/ledger.db");
  EXPECT_EQ(store::redact("postgresql://u@h/db"), "postgresql://u@h/db");
}

TEST(OpenStore, ScrubHidesThePasswordAsWrittenAndAsDecoded) {
  const std::string uri = "postgresql://u:p%40ss@h/db";
  EXPECT_EQ(store::scrub("bad token \"p%40ss\" and p@ss", uri), "bad token \"***\" and ***");
  // Quoted, with escapes: as written and as libpq reads it.
  const std::string kv = "host=h password='it\\'s s3cret' user=u";
  EXPECT_EQ(store::scrub("[it's s3cret] ['it\\'s s3cret']", kv), "[***] [***]");
  EXPECT_EQ(store::scrub("auth failed for s3cret", "host=h password=s3cret"),
            "auth failed for ***");
  EXPECT_EQ(store::scrub("nothing to hide", "/data/ledger.db"), "nothing to hide");
}

TEST(OpenStore, AnEmptyPostgresDatabaseIsNotALedgerUntilCreated) {
  auto fresh = testing::fresh_postgres_db();
  if (!fresh.skip_reason.empty()) {
    if (const char* req = std::getenv("AICOST_TEST_PG_REQUIRED"); req && std::string(req) == "1")
      FAIL() << "PostgreSQL is required here: " << fresh.skip_reason;
    GTEST_SKIP() << fresh.skip_reason;
  }
  auto missing = store::open_store(fresh.db);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, core::ErrorCode::kNotFound);
  EXPECT_NE(missing.error().message.find("no aicost ledger in this database"), std::string::npos)
      << missing.error().what();
  int created = 0;
  ASSERT_TRUE(store::open_store(fresh.db, {.mode = store::OpenMode::kCreate,
                                           .on_create = [&](const std::string&) { ++created; }}));
  EXPECT_EQ(created, 1);
  EXPECT_TRUE(store::open_store(fresh.db));
}

}  // namespace
}  // namespace aicost
