#include "sqlite_feed.h"

namespace aicost::store {

struct SqliteFeed::Cursor {
  sqlite3_vtab_cursor base;  // first: SQLite casts between the two
  const SqliteFeed* feed;
  std::size_t row;
};

namespace {

struct Table {
  sqlite3_vtab base;  // first: SQLite casts between the two
  const SqliteFeed* feed;
};

}  // namespace

const sqlite3_module SqliteFeed::kModule = [] {
  sqlite3_module m{};
  m.iVersion = 0;
  m.xCreate = nullptr;  // eponymous only: `FROM name` without CREATE VIRTUAL TABLE
  m.xConnect = [](sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out,
                  char**) -> int {
    const auto* feed = static_cast<const SqliteFeed*>(aux);
    std::string schema = "CREATE TABLE x(c0";
    for (int c = 1; c < feed->columns_; ++c) schema += ", c" + std::to_string(c);
    schema += ")";
    if (int rc = sqlite3_declare_vtab(db, schema.c_str()); rc != SQLITE_OK) return rc;
    sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);  // never from triggers or views
    auto* t = new Table{};
    t->feed = feed;
    *out = &t->base;
    return SQLITE_OK;
  };
  m.xBestIndex = [](sqlite3_vtab*, sqlite3_index_info* info) -> int {
    info->estimatedCost = 1e6;
    return SQLITE_OK;
  };
  m.xDisconnect = [](sqlite3_vtab* t) -> int {
    delete reinterpret_cast<Table*>(t);
    return SQLITE_OK;
  };
  m.xOpen = [](sqlite3_vtab* t, sqlite3_vtab_cursor** out) -> int {
    auto* c = new Cursor{};
    c->feed = reinterpret_cast<Table*>(t)->feed;
    *out = &c->base;
    return SQLITE_OK;
  };
  m.xClose = [](sqlite3_vtab_cursor* c) -> int {
    delete reinterpret_cast<Cursor*>(c);
    return SQLITE_OK;
  };
  m.xFilter = [](sqlite3_vtab_cursor* c, int, const char*, int, sqlite3_value**) -> int {
    reinterpret_cast<Cursor*>(c)->row = 0;
    return SQLITE_OK;
  };
  m.xNext = [](sqlite3_vtab_cursor* c) -> int {
    ++reinterpret_cast<Cursor*>(c)->row;
    return SQLITE_OK;
  };
  m.xEof = [](sqlite3_vtab_cursor* c) -> int {
    const auto* cur = reinterpret_cast<Cursor*>(c);
    return cur->row >= cur->feed->n_;
  };
  m.xColumn = [](sqlite3_vtab_cursor* c, sqlite3_context* ctx, int column) -> int {
    const auto* cur = reinterpret_cast<Cursor*>(c);
    cur->feed->column_(cur->feed->rows_, cur->row, column, ctx);
    return SQLITE_OK;
  };
  m.xRowid = [](sqlite3_vtab_cursor* c, sqlite3_int64* out) -> int {
    *out = static_cast<sqlite3_int64>(reinterpret_cast<Cursor*>(c)->row);
    return SQLITE_OK;
  };
  return m;
}();

core::Status SqliteFeed::attach(sqlite3* db) {
  if (sqlite3_create_module_v2(db, name_.c_str(), &kModule, this, nullptr) != SQLITE_OK)
    return core::make_error(core::ErrorCode::kInternal,
                            std::string("SQLite: ") + sqlite3_errmsg(db), name_);
  return {};
}

}  // namespace aicost::store
