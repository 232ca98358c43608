// `aicost serve`: a local dashboard over a ledger (docs/REPORTS.md "Dashboard"). Pages drawn with
// the `-o html` page and charts (report/html.h, report/charts.h); /api/... answers with the bytes
// of the CLI's `-o json` (the same api calls make them); /metrics with `ledger check --prometheus`.
//
// The ledger is opened read-only for each request (store::OpenMode::kReadOnly), so an ingest may
// run beside it: each read sees whole files only (one transaction per file). Nothing a request
// sends names a file: plans are posted as text and may not name files (config/plan_files.h); the
// plans of --plans are read once, at start, and chosen by name.
//
// Thread safety: the server answers requests on a pool of threads; stop() may be called from any
// thread.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "aicost/api/api.h"
#include "aicost/catalog/catalog.h"
#include "aicost/core/result.h"

namespace aicost::dashboard {

struct ServeOptions {
  std::string db;       // the ledger (SQLite file or PostgreSQL connection string)
  std::string budgets;  // the budget file of `ledger check` ("": the budget pages say to give one)
  std::string plans_dir;  // plan files (*.yaml, *.yml) offered on the what-if page ("": none)
  std::string host = "127.0.0.1";
  int port = 8080;    // 0: any free port (Server::port() says which)
  std::string token;  // asked of every request when not empty; required off loopback
  std::size_t max_body_bytes = 256 * 1024;  // a larger request body is refused (413)
  std::string as_of;                        // the checks' day, YYYY-MM-DD ("": today, UTC)
  unsigned threads = 0;      // of a large SQLite read (store::StoreOptions::scan_threads)
  catalog::Catalog catalog;  // prices and specs of the what-if page's estimates
};

// True for 127.0.0.0/8, ::1 and "localhost".
bool is_loopback(const std::string& host);
// `a == b`, in a time that depends on their lengths only, not on where they differ.
bool same_token(std::string_view a, std::string_view b);
// "HOST:PORT", "[V6]:PORT" or ":PORT" (127.0.0.1) into host and port; kInvalidInput otherwise.
core::Status parse_listen(const std::string& text, std::string& host, int& port);

class Server {
 public:
  // Checks the options (a host off loopback without a token: kInvalidInput; the budget file and
  // the plans read once to fail early), reads --plans and binds (kIo when the address is taken).
  static core::Result<std::unique_ptr<Server>> bind(ServeOptions options);
  ~Server();
  int port() const;
  std::string url() const;  // "http://HOST:PORT/"
  // Answers requests until stop(); false when the server could not run.
  bool run();
  void stop();

 private:
  struct Impl;
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace aicost::dashboard
