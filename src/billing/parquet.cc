#include "parquet.h"

#include <duckdb.h>

#include <memory>
#include <vector>

namespace aicost::billing {
namespace {

// DuckDB's handles, closed in reverse order of opening whatever way the read ends.
struct Duck {
  duckdb_database db = nullptr;
  duckdb_connection con = nullptr;
  duckdb_prepared_statement prepared = nullptr;
  duckdb_pending_result pending = nullptr;
  duckdb_result result{};
  bool has_result = false;
  ~Duck() {
    if (has_result) duckdb_destroy_result(&result);
    if (pending) duckdb_destroy_pending(&pending);
    if (prepared) duckdb_destroy_prepare(&prepared);
    if (con) duckdb_disconnect(&con);
    if (db) duckdb_close(&db);
  }
};

struct ChunkDeleter {
  void operator()(duckdb_data_chunk c) const { duckdb_destroy_data_chunk(&c); }
};
using Chunk = std::unique_ptr<std::remove_pointer_t<duckdb_data_chunk>, ChunkDeleter>;

std::string sql_string(std::string_view s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::string sql_name(std::string_view s) {
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// DuckDB names the /proc path it was given; the user knows the file by its own.
std::string unproc(std::string message, const std::string& proc, const std::string& path) {
  for (auto at = message.find(proc); at != std::string::npos;
       at = message.find(proc, at + path.size()))
    message.replace(at, proc.size(), path);
  return message;
}

// The select item that turns column `name` of type `type` into the text a CSV export holds
// (parquet.h lists the conversions).
std::string as_text(const std::string& name, duckdb_type type) {
  std::string c = sql_name(name);
  switch (type) {
    case DUCKDB_TYPE_VARCHAR: return c;
    case DUCKDB_TYPE_TIMESTAMP:
    case DUCKDB_TYPE_TIMESTAMP_S:
    case DUCKDB_TYPE_TIMESTAMP_MS:
    case DUCKDB_TYPE_TIMESTAMP_NS:
    case DUCKDB_TYPE_TIMESTAMP_TZ: {
      // microsecond() counts the microseconds within the minute, seconds included.
      const std::string t = type == DUCKDB_TYPE_TIMESTAMP_TZ ? c : "CAST(" + c + " AS TIMESTAMP)";
      return "CASE WHEN microsecond(" + t + ") % 1000000 = 0 THEN strftime(" + t +
             ", '%Y-%m-%dT%H:%M:%SZ') ELSE strftime(" + t + ", '%Y-%m-%dT%H:%M:%S.%fZ') END";
    }
    case DUCKDB_TYPE_DATE: return "strftime(" + c + ", '%Y-%m-%dT00:00:00Z')";
    case DUCKDB_TYPE_MAP:
    case DUCKDB_TYPE_STRUCT:
    case DUCKDB_TYPE_LIST:
    case DUCKDB_TYPE_ARRAY:
    case DUCKDB_TYPE_UNION: return "CAST(to_json(" + c + ") AS VARCHAR)";
    default: return "CAST(" + c + " AS VARCHAR)";
  }
}

core::Error duck_error(const char* what, const char* detail, const std::string& proc,
                       const std::string& path) {
  return core::make_error(core::ErrorCode::kParse,
                          std::string("this Parquet file cannot be read: ") +
                              unproc(detail ? detail : what, proc, path) +
                              "; export it again, or as CSV",
                          path);
}

}  // namespace

bool is_parquet(std::string_view head) { return head.substr(0, 4) == "PAR1"; }

core::Status read_parquet_records(int fd, const std::string& path,
                                  const core::CsvRecordFn& on_record) {
  const std::string proc = "/proc/self/fd/" + std::to_string(fd);
  Duck d;
  duckdb_config config = nullptr;
  if (duckdb_create_config(&config) != DuckDBSuccess)
    return core::make_error(
        core::ErrorCode::kInternal,
        "cannot start DuckDB, which reads Parquet: its library (libduckdb.so, in "
        "<libdir>/aicost once installed) did not load, or memory ran out",
        path);
  // One thread keeps the rows in the file's order and the memory small; no extension is fetched
  // or loaded from outside (Parquet, JSON and ICU are built into libduckdb).
  for (const auto& [key, value] : {std::pair{"threads", "1"}, std::pair{"memory_limit", "256MB"},
                                   std::pair{"autoinstall_known_extensions", "false"},
                                   std::pair{"autoload_known_extensions", "false"}})
    duckdb_set_config(config, key, value);
  char* open_error = nullptr;
  const auto opened = duckdb_open_ext(nullptr, &d.db, config, &open_error);
  duckdb_destroy_config(&config);
  if (opened != DuckDBSuccess) {
    std::string why = open_error ? open_error : "unknown";
    duckdb_free(open_error);
    return core::make_error(core::ErrorCode::kInternal, "cannot start DuckDB: " + why, path);
  }
  if (duckdb_connect(d.db, &d.con) != DuckDBSuccess)
    return core::make_error(core::ErrorCode::kInternal, "cannot connect to DuckDB", path);
  // Times with a zone are written in UTC, whatever the machine's zone.
  if (duckdb_query(d.con, "SET TimeZone = 'UTC'", nullptr) != DuckDBSuccess)
    return core::make_error(core::ErrorCode::kInternal, "cannot set DuckDB's time zone to UTC",
                            path);

  // The schema: names and types of the columns, from the file's footer.
  const std::string scan = "read_parquet(" + sql_string(proc) + ", binary_as_string = true)";
  if (duckdb_prepare(d.con, ("SELECT * FROM " + scan).c_str(), &d.prepared) != DuckDBSuccess)
    return duck_error("no schema", duckdb_prepare_error(d.prepared), proc, path);
  const idx_t columns = duckdb_prepared_statement_column_count(d.prepared);
  std::vector<std::string> names;
  std::string select;
  for (idx_t i = 0; i < columns; ++i) {
    const char* name = duckdb_prepared_statement_column_name(d.prepared, i);
    names.emplace_back(name ? name : "");
    select += (i ? ", " : "") +
              as_text(names.back(), duckdb_prepared_statement_column_type(d.prepared, i));
  }
  duckdb_destroy_prepare(&d.prepared);

  {
    core::CsvRecord header;
    for (const auto& n : names) header.fields.emplace_back(n);
    header.line = 0;
    if (auto s = on_record(header); !s) return s;
  }

  if (duckdb_prepare(d.con, ("SELECT " + select + " FROM " + scan).c_str(), &d.prepared) !=
      DuckDBSuccess)
    return duck_error("cannot select", duckdb_prepare_error(d.prepared), proc, path);
  // The streaming form is deprecated in DuckDB's C API but is its only way to fetch a result a
  // chunk at a time without materialising it; the version is pinned (scripts/install-duckdb.sh).
  if (duckdb_pending_prepared_streaming(d.prepared, &d.pending) != DuckDBSuccess)
    return duck_error("cannot start the read", duckdb_pending_error(d.pending), proc, path);
  d.has_result = true;
  if (duckdb_execute_pending(d.pending, &d.result) != DuckDBSuccess)
    return duck_error("cannot read", duckdb_result_error(&d.result), proc, path);

  core::CsvRecord record;
  std::string raw;
  std::vector<std::size_t> ends(columns);
  std::vector<duckdb_string_t*> data(columns);
  std::vector<std::uint64_t*> validity(columns);
  std::int64_t row = 0;
  for (;;) {
    Chunk chunk(duckdb_fetch_chunk(d.result));
    if (!chunk) {
      if (const char* e = duckdb_result_error(&d.result))
        return duck_error("cannot read", e, proc, path);
      break;
    }
    const idx_t n = duckdb_data_chunk_get_size(chunk.get());
    if (n == 0) break;
    for (idx_t c = 0; c < columns; ++c) {
      duckdb_vector v = duckdb_data_chunk_get_vector(chunk.get(), c);
      data[c] = static_cast<duckdb_string_t*>(duckdb_vector_get_data(v));
      validity[c] = duckdb_vector_get_validity(v);
    }
    for (idx_t r = 0; r < n; ++r) {
      // The cells side by side in one buffer: the record's `raw` bytes, which the readers check
      // (UTF-8, sizes) at once, as they do a CSV line's.
      raw.clear();
      for (idx_t c = 0; c < columns; ++c) {
        if (!validity[c] || duckdb_validity_row_is_valid(validity[c], r)) {
          duckdb_string_t& s = data[c][r];
          raw.append(duckdb_string_t_data(&s), duckdb_string_t_length(s));
        }
        ends[c] = raw.size();
      }
      record.fields.clear();
      for (idx_t c = 0, begin = 0; c < columns; begin = ends[c++])
        record.fields.emplace_back(raw.data() + begin, ends[c] - begin);
      record.raw = raw;
      record.line = ++row;
      if (auto s = on_record(record); !s) return s;
    }
  }
  return {};
}

}  // namespace aicost::billing
