#include "pg_lock.h"

#include <unistd.h>

#include <cstdlib>
#include <string>

#include "file_lock.h"

namespace aicost::store {
namespace {

constexpr const char* kLock = "LOCK TABLE sources IN SHARE ROW EXCLUSIVE MODE";

// The session holding a lock on `sources` that conflicts with the writers' one. An aicost writer
// is told by its application_name; another client by its server pid and application_name (which
// PostgreSQL shows only to its own user and to pg_read_all_stats).
LockHolder holder(PgConn& session) {
  LockHolder h;
  auto r = session.run(
      "finding who holds the ledger",
      "SELECT a.pid, COALESCE(a.application_name, ''), COALESCE(to_char(a.xact_start AT TIME ZONE "
      "'UTC', "
      "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), '') FROM pg_locks l JOIN pg_stat_activity a ON a.pid = "
      "l.pid "
      "WHERE l.locktype = 'relation' AND l.relation = 'sources'::regclass AND l.granted "
      "AND l.pid <> pg_backend_pid() AND l.mode NOT IN ('AccessShareLock', 'RowShareLock') "
      "ORDER BY l.mode = 'ShareRowExclusiveLock' DESC LIMIT 1");
  if (!r || PQntuples(r->get()) == 0) return h;
  const std::string server_pid = PQgetvalue(r->get(), 0, 0), app = PQgetvalue(r->get(), 0, 1);
  h.since = PQgetvalue(r->get(), 0, 2);
  // "aicost ingest pid 1234"
  const auto pid_at = app.rfind(" pid ");
  if (app.rfind("aicost ", 0) == 0 && pid_at != std::string::npos && pid_at > 7) {
    h.what = app.substr(7, pid_at - 7);
    h.pid = std::atoll(app.c_str() + pid_at + 5);
  } else {
    h.what = "client";
    h.detail = "server pid " + server_pid + (app.empty() ? "" : ", application_name '" + app + "'");
  }
  return h;
}

// Runs `sql` (the lock) and tells whether it failed for want of the lock (SQLSTATE 55P03).
core::Result<bool> try_lock(PgConn& session, PGconn* conn, const std::string& sql) {
  PgResult r(PQexec(conn, sql.c_str()));
  if (r && PQresultStatus(r.get()) == PGRES_COMMAND_OK) return true;
  const char* state = r ? PQresultErrorField(r.get(), PG_DIAG_SQLSTATE) : nullptr;
  if (state && std::string(state) == "55P03") return false;
  return session.error("locking the ledger for writing", r.get());
}

}  // namespace

core::Status lock_ledger(PgConn& session, PGconn* conn, const std::string& where,
                         const StoreOptions& options, const char* what) {
  const std::string me = std::string("aicost ") + what + " pid " + std::to_string(::getpid());
  if (auto r = session.run("naming the session", "SELECT set_config('application_name', $1, true)",
                           {me});
      !r)
    return r.error();
  // A failed LOCK aborts the transaction: each try runs in a savepoint to roll back to.
  if (auto r = session.run("locking the ledger for writing", "SAVEPOINT aicost_lock"); !r)
    return r.error();
  auto got = try_lock(session, conn, std::string(kLock) + " NOWAIT");
  if (!got) return got.error();
  if (!*got) {
    if (auto r = session.run("locking the ledger for writing", "ROLLBACK TO SAVEPOINT aicost_lock");
        !r)
      return r.error();
    const LockHolder first = holder(session);
    if (options.lock_timeout.count() <= 0) return still_locked(first, options.lock_timeout, where);
    if (options.on_wait) options.on_wait(first, options.lock_timeout);
    // In the server's queue from here, in turn with other writers.
    if (auto r = session.run("locking the ledger for writing",
                             "SELECT set_config('lock_timeout', $1, true)",
                             {std::to_string(options.lock_timeout.count()) + "ms"});
        !r)
      return r.error();
    got = try_lock(session, conn, kLock);
    if (!got) return got.error();
    if (!*got) {
      if (auto r =
              session.run("locking the ledger for writing", "ROLLBACK TO SAVEPOINT aicost_lock");
          !r)
        return r.error();
      const LockHolder last = holder(session);
      return still_locked(last.pid != 0 || !last.detail.empty() ? last : first,
                          options.lock_timeout, where);
    }
    if (auto r = session.run("locking the ledger for writing",
                             "SELECT set_config('lock_timeout', '0', true)");
        !r)
      return r.error();
  }
  if (auto r = session.run("locking the ledger for writing", "RELEASE SAVEPOINT aicost_lock"); !r)
    return r.error();
  return {};
}

}  // namespace aicost::store
