// DuckDB's C functions for the Python module, loaded when first called: the billing module reads
// Parquet through them (src/billing/parquet.cc), and only an ingest of a Parquet file calls them.
// Linked into _native, these definitions take the place of libduckdb.so, so that `import aicost`
// does not load its 60 MB (about 25 ms of CPU, half of an import and an estimate; docs/PYTHON.md
// "Speed"). The library is opened on the first call with dlopen, found through the module's
// RUNPATH (the build tree's DuckDB, or <libdir>/aicost once installed: python/CMakeLists.txt).
// When it cannot be opened every call fails as DuckDB reports a failure (DuckDBError, a null
// handle), and the Parquet reader returns its error ("cannot start DuckDB, which reads Parquet: its
// library ... did not load").
#include <dlfcn.h>

#include <cstdlib>

#include "duckdb.h"

namespace {

void* library() {
  static void* const handle = dlopen("libduckdb.so", RTLD_NOW | RTLD_LOCAL);
  return handle;
}

template <class F>
F resolve(const char* name) {
  void* h = library();
  return h ? reinterpret_cast<F>(dlsym(h, name)) : nullptr;
}

}  // namespace

// A return type, a parameter list and an argument list cannot be put in parentheses.
// NOLINTBEGIN(bugprone-macro-parentheses)
// A function returning a value: `fallback` when the library is missing.
#define AICOST_DUCKDB(ret, name, params, args, fallback)      \
  extern "C" ret name params {                                \
    static const auto real = resolve<decltype(&name)>(#name); \
    return real ? real args : fallback;                       \
  }
// A function returning nothing: nothing done when the library is missing.
#define AICOST_DUCKDB_VOID(name, params, args)                \
  extern "C" void name params {                               \
    static const auto real = resolve<decltype(&name)>(#name); \
    if (real) real args;                                      \
  }
// NOLINTEND(bugprone-macro-parentheses)

AICOST_DUCKDB(duckdb_state, duckdb_create_config, (duckdb_config * out), (out), DuckDBError)
AICOST_DUCKDB(duckdb_state, duckdb_set_config,
              (duckdb_config c, const char* name, const char* option), (c, name, option),
              DuckDBError)
AICOST_DUCKDB_VOID(duckdb_destroy_config, (duckdb_config * c), (c))
AICOST_DUCKDB(duckdb_state, duckdb_open_ext,
              (const char* path, duckdb_database* out, duckdb_config c, char** out_error),
              (path, out, c, out_error), DuckDBError)
AICOST_DUCKDB_VOID(duckdb_close, (duckdb_database * db), (db))
AICOST_DUCKDB(duckdb_state, duckdb_connect, (duckdb_database db, duckdb_connection* out), (db, out),
              DuckDBError)
AICOST_DUCKDB_VOID(duckdb_disconnect, (duckdb_connection * con), (con))
AICOST_DUCKDB(duckdb_state, duckdb_query,
              (duckdb_connection con, const char* query, duckdb_result* out), (con, query, out),
              DuckDBError)
AICOST_DUCKDB(const char*, duckdb_result_error, (duckdb_result * r), (r), nullptr)
AICOST_DUCKDB_VOID(duckdb_destroy_result, (duckdb_result * r), (r))
AICOST_DUCKDB(duckdb_state, duckdb_prepare,
              (duckdb_connection con, const char* query, duckdb_prepared_statement* out),
              (con, query, out), DuckDBError)
AICOST_DUCKDB(const char*, duckdb_prepare_error, (duckdb_prepared_statement p), (p), nullptr)
AICOST_DUCKDB_VOID(duckdb_destroy_prepare, (duckdb_prepared_statement * p), (p))
AICOST_DUCKDB(idx_t, duckdb_prepared_statement_column_count, (duckdb_prepared_statement p), (p), 0)
AICOST_DUCKDB(const char*, duckdb_prepared_statement_column_name,
              (duckdb_prepared_statement p, idx_t i), (p, i), nullptr)
AICOST_DUCKDB(duckdb_type, duckdb_prepared_statement_column_type,
              (duckdb_prepared_statement p, idx_t i), (p, i), DUCKDB_TYPE_INVALID)
AICOST_DUCKDB(duckdb_state, duckdb_pending_prepared_streaming,
              (duckdb_prepared_statement p, duckdb_pending_result* out), (p, out), DuckDBError)
AICOST_DUCKDB(const char*, duckdb_pending_error, (duckdb_pending_result p), (p), nullptr)
AICOST_DUCKDB(duckdb_state, duckdb_execute_pending, (duckdb_pending_result p, duckdb_result* out),
              (p, out), DuckDBError)
AICOST_DUCKDB_VOID(duckdb_destroy_pending, (duckdb_pending_result * p), (p))
AICOST_DUCKDB(duckdb_data_chunk, duckdb_fetch_chunk, (duckdb_result r), (r), nullptr)
AICOST_DUCKDB(idx_t, duckdb_data_chunk_get_size, (duckdb_data_chunk c), (c), 0)
AICOST_DUCKDB(duckdb_vector, duckdb_data_chunk_get_vector, (duckdb_data_chunk c, idx_t i), (c, i),
              nullptr)
AICOST_DUCKDB_VOID(duckdb_destroy_data_chunk, (duckdb_data_chunk * c), (c))
AICOST_DUCKDB(void*, duckdb_vector_get_data, (duckdb_vector v), (v), nullptr)
AICOST_DUCKDB(uint64_t*, duckdb_vector_get_validity, (duckdb_vector v), (v), nullptr)
AICOST_DUCKDB(bool, duckdb_validity_row_is_valid, (uint64_t * validity, idx_t row), (validity, row),
              false)
AICOST_DUCKDB(uint32_t, duckdb_string_t_length, (duckdb_string_t s), (s), 0)
AICOST_DUCKDB(const char*, duckdb_string_t_data, (duckdb_string_t * s), (s), nullptr)

// What DuckDB allocated goes back to it; without it there is nothing of its to free.
extern "C" void duckdb_free(void* ptr) {
  static const auto real = resolve<decltype(&duckdb_free)>("duckdb_free");
  if (real)
    real(ptr);
  else
    std::free(ptr);
}
