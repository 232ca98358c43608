#include "aicost/store/open.h"

#include <fcntl.h>
#include <libpq-fe.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "aicost/core/suggest.h"
#include "aicost/core/text.h"
#include "sqlite_store.h"

namespace aicost::store {
namespace {

namespace fs = std::filesystem;

bool is_uri(const std::string& db) {
  return db.rfind("postgresql://", 0) == 0 || db.rfind("postgres://", 0) == 0;
}

// libpq's keyword=value form: a keyword (letters and _), optional spaces, '='.
bool is_keyword_value(const std::string& db) {
  std::size_t i = db.find_first_not_of(" \t\n\r");
  const std::size_t start = i;
  while (i < db.size() && (std::isalpha(static_cast<unsigned char>(db[i])) || db[i] == '_')) ++i;
  if (i == start || i == std::string::npos) return false;
  i = db.find_first_not_of(" \t\n\r", i);
  return i != std::string::npos && db[i] == '=';
}

// The keywords whose values are secrets: libpq's password and sslpassword, and anything like them
// (a misspelt "pasword=" is refused by libpq, but its value is still the password).
bool secret_keyword(std::string_view key) {
  const std::string k = core::ascii_lower(key);
  return k.find("pass") != std::string::npos || k.find("pwd") != std::string::npos;
}

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string percent_decoded(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// A piece of a connection string that is a secret: [begin, end) as written.
struct Span {
  std::size_t begin, end;
};

// Where the secrets of a URI are: the password of its userinfo (up to the last '@' before the
// query, so that an unencoded '@' or '/' in it stays hidden) and the values of password= in its
// query (keys percent-decoded, as libpq reads them).
std::vector<Span> uri_secrets(const std::string& db) {
  std::vector<Span> out;
  const std::size_t from = db.find("://") + 3;
  const std::size_t query = db.find('?', from);
  const std::size_t authority_end = query == std::string::npos ? db.size() : query;
  const std::size_t at = db.rfind('@', authority_end == 0 ? 0 : authority_end - 1);
  if (at != std::string::npos && at >= from) {
    const std::size_t colon = db.find(':', from);
    if (colon != std::string::npos && colon < at) out.push_back({colon + 1, at});
  }
  for (std::size_t p = query; p != std::string::npos && p < db.size();) {
    const std::size_t start = p + 1;
    std::size_t end = db.find('&', start);
    if (end == std::string::npos) end = db.size();
    const std::size_t eq = db.find('=', start);
    if (eq != std::string::npos && eq < end &&
        secret_keyword(percent_decoded(db.substr(start, eq - start))))
      out.push_back({eq + 1, end});
    p = end < db.size() ? end : std::string::npos;
  }
  return out;
}

// Where the secret values of keyword=value pairs are, read as libpq reads them: a value is a run
// of non-spaces or a single-quoted string, with backslash escapes in either.
std::vector<Span> keyword_value_secrets(const std::string& db) {
  std::vector<Span> out;
  std::size_t i = 0;
  auto skip_space = [&] {
    while (i < db.size() && std::isspace(static_cast<unsigned char>(db[i]))) ++i;
  };
  while (true) {
    skip_space();
    if (i >= db.size()) break;
    const std::size_t key_start = i;
    while (i < db.size() && db[i] != '=' && !std::isspace(static_cast<unsigned char>(db[i]))) ++i;
    const std::string key = db.substr(key_start, i - key_start);
    skip_space();
    if (i < db.size() && db[i] == '=') ++i;
    skip_space();
    const std::size_t value_start = i;
    if (i < db.size() && db[i] == '\'') {
      for (++i; i < db.size() && db[i] != '\''; ++i)
        if (db[i] == '\\') ++i;
      if (i < db.size()) ++i;
    } else {
      for (; i < db.size() && !std::isspace(static_cast<unsigned char>(db[i])); ++i)
        if (db[i] == '\\') ++i;
    }
    i = std::min(i, db.size());
    if (secret_keyword(key)) out.push_back({value_start, i});
  }
  return out;
}

std::vector<Span> secret_spans(const std::string& db) {
  if (is_uri(db)) return uri_secrets(db);
  if (is_keyword_value(db)) return keyword_value_secrets(db);
  return {};
}

// Every text a password of `db` may be written as: as written, percent-decoded, unquoted and
// unescaped, and as libpq parsed it.
std::vector<std::string> secrets(const std::string& db) {
  std::vector<std::string> out;
  auto add = [&out](std::string s) {
    if (!s.empty()) out.push_back(std::move(s));
  };
  for (const auto& s : secret_spans(db)) {
    const std::string raw = db.substr(s.begin, s.end - s.begin);
    add(raw);
    add(percent_decoded(raw));
    std::string plain;
    const std::string_view inner = raw.size() >= 2 && raw.front() == '\'' && raw.back() == '\''
                                       ? std::string_view(raw).substr(1, raw.size() - 2)
                                       : std::string_view(raw);
    for (std::size_t i = 0; i < inner.size(); ++i)
      plain += inner[i] == '\\' && i + 1 < inner.size() ? inner[++i] : inner[i];
    add(plain);
  }
  if (is_postgres_url(db)) {
    if (PQconninfoOption* opts = PQconninfoParse(db.c_str(), nullptr)) {
      for (auto* o = opts; o->keyword; ++o)
        if (secret_keyword(o->keyword) && o->val) add(o->val);
      PQconninfoFree(opts);
    }
  }
  // Longest first, so that a password containing another is hidden whole.
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.size() > b.size(); });
  return out;
}

// Makes the folders of `dir` that are missing, each 0700 (billing data is confidential).
core::Status make_private_folders(const fs::path& dir) {
  if (dir.empty()) return {};
  fs::path at;
  for (const auto& part : dir) {
    at /= part;
    if (::mkdir(at.c_str(), 0700) != 0 && errno != EEXIST)
      return core::make_error(
          core::ErrorCode::kIo,
          std::string("cannot create the ledger's folder: ") + std::strerror(errno), at.string());
  }
  return {};
}

// No ledger at `path`: the error, offering the closest SQLite-looking file in its folder.
core::Error no_ledger(const std::string& path) {
  const fs::path p(path);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto ext = it->path().extension().string();
    if (ext == ".db" || ext == ".sqlite" || ext == ".sqlite3" || ext == ".ledger")
      names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  std::string hint;
  if (const auto best = core::closest_match(p.filename().string(), names))
    hint = " Did you mean '" + (p.has_parent_path() ? (p.parent_path() / *best).string() : *best) +
           "'?";
  else if (!fs::is_directory(dir, ec))
    hint = " (its folder " + dir.string() + " does not exist either)";
  return core::make_error(core::ErrorCode::kNotFound,
                          "there is no ledger here." + hint +
                              " Load a billing export first (aicost ledger ingest FILE --db " +
                              path + ") or make an empty ledger (aicost ledger init --db " + path +
                              ")",
                          path);
}

}  // namespace

bool is_postgres_url(const std::string& db) { return is_uri(db) || is_keyword_value(db); }

core::Result<std::unique_ptr<ledger::Store>> open_store(const std::string& db,
                                                        const StoreOptions& options) {
  if (is_keyword_value(db)) {
    char* err = nullptr;
    PQconninfoOption* opts = PQconninfoParse(db.c_str(), &err);
    if (!opts) {
      const std::string why = err ? err : "out of memory";
      PQfreemem(err);
      std::string msg = why;
      while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
      return core::make_error(
          core::ErrorCode::kInvalidInput,
          scrub("this reads as a PostgreSQL connection string (keyword=value) that libpq cannot "
                "parse: " +
                    msg + "; a SQLite file whose name holds '=' is written ./NAME",
                db),
          redact(db));
    }
    PQconninfoFree(opts);
  }
  if (is_postgres_url(db)) return open_postgres(db, options);
  const fs::path p(db);
  std::error_code ec;
  if (options.mode != OpenMode::kCreate && db != ":memory:" && !fs::exists(p, ec))
    return no_ledger(db);
  if (options.mode == OpenMode::kCreate && db != ":memory:") {
    if (auto s = make_private_folders(p.parent_path()); !s) return s.error();
    // Made here, 0600, as SQLite would make it 0644; its -wal and -shm files take its mode.
    const int fd = ::open(db.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0)
      ::close(fd);
    else if (errno != EEXIST)
      return core::make_error(core::ErrorCode::kIo,
                              std::string("cannot create the ledger: ") + std::strerror(errno), db);
  }
  return open_sqlite(db, options);
}

std::string default_db() {
  if (const char* v = std::getenv("AICOST_DB"); v && *v) return v;
  if (const char* v = std::getenv("XDG_DATA_HOME"); v && *v)
    return std::string(v) + "/aicost/ledger.db";
  if (const char* v = std::getenv("HOME"); v && *v)
    return std::string(v) + "/.local/share/aicost/ledger.db";
  return "aicost-ledger.db";
}

std::string redact(const std::string& db) {
  auto spans = secret_spans(db);
  std::string out = db;
  for (auto it = spans.rbegin(); it != spans.rend(); ++it)
    out.replace(it->begin, it->end - it->begin, "***");
  return out;
}

std::string scrub(std::string text, const std::string& db) {
  for (const auto& s : secrets(db))
    for (auto pos = text.find(s); pos != std::string::npos; pos = text.find(s, pos + 3))
      text.replace(pos, s.size(), "***");
  return text;
}

std::string describe(const LockHolder& h) {
  std::string who = h.what == "ingest" || h.what.empty() ? "another ingest is running"
                    : h.what == "check" ? "another aicost ledger check is recording alerts"
                                        : "another aicost " + h.what + " is running";
  std::string about;
  if (h.pid != 0) about = "pid " + std::to_string(h.pid);
  if (!h.since.empty()) about += (about.empty() ? "" : ", ") + std::string("since ") + h.since;
  if (!h.detail.empty()) about += (about.empty() ? "" : ", ") + h.detail;
  return who + " (" + (about.empty() ? "its pid is unknown" : about) + ")";
}

std::string describe(std::chrono::milliseconds timeout) {
  const auto ms = timeout.count();
  if (ms > 0 && ms % 3'600'000 == 0) return std::to_string(ms / 3'600'000) + "h";
  if (ms > 0 && ms % 60'000 == 0) return std::to_string(ms / 60'000) + "min";
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + "s";
  return std::to_string(ms) + "ms";
}

}  // namespace aicost::store
