// The write lock of a PostgreSQL ledger: LOCK TABLE sources IN SHARE ROW EXCLUSIVE MODE inside the
// writer's transaction (readers never wait for it), taken at once when free; else the writer says
// who holds it (StoreOptions::on_wait) and waits up to StoreOptions::lock_timeout in the server's
// lock queue.
#pragma once

#include <libpq-fe.h>

#include <string>

#include "aicost/core/result.h"
#include "aicost/store/open.h"
#include "pg_conn.h"

namespace aicost::store {

// Takes the lock in the transaction open on `session` (whose connection is `conn`; `where` names it
// in errors), for `what` ("ingest", ...), which the session's application_name carries while it
// holds it ("aicost ingest pid 1234"), for other writers to tell. Fails (kIo) naming the holder
// after the timeout.
core::Status lock_ledger(PgConn& session, PGconn* conn, const std::string& where,
                         const StoreOptions& options, const char* what);

}  // namespace aicost::store
