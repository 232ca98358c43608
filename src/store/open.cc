#include "aicost/store/open.h"

#include <cstdlib>
#include <filesystem>

#include "sqlite_store.h"

namespace aicost::store {

bool is_postgres_url(const std::string& db) {
  return db.rfind("postgresql://", 0) == 0 || db.rfind("postgres://", 0) == 0;
}

core::Result<std::unique_ptr<ledger::Store>> open_store(const std::string& db, const StoreOptions& options) {
  if (is_postgres_url(db)) return open_postgres(db);
  const std::filesystem::path p(db);
  if (p.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(p.parent_path(), ec);
    if (ec)
      return core::make_error(core::ErrorCode::kIo, "cannot create the ledger's folder: " + ec.message(),
                              p.parent_path().string());
  }
  return open_sqlite(db, options);
}

std::string default_db() {
  if (const char* v = std::getenv("AICOST_DB"); v && *v) return v;
  if (const char* v = std::getenv("XDG_DATA_HOME"); v && *v) return std::string(v) + "/aicost/ledger.db";
  if (const char* v = std::getenv("HOME"); v && *v) return std::string(v) + "/.local/share/aicost/ledger.db";
  return "aicost-ledger.db";
}

std::string redact(const std::string& db) {
  if (!is_postgres_url(db)) return db;
  const auto scheme = db.find("://") + 3;
  const auto at = db.find('@', scheme);
  if (at == std::string::npos) return db;
  const auto colon = db.find(':', scheme);
  if (colon == std::string::npos || colon > at) return db;
  return db.substr(0, colon + 1) + "***" + db.substr(at);
}

}  // namespace aicost::store
