// `aicost serve`: the local dashboard over a ledger (src/dashboard, docs/REPORTS.md "Dashboard").
#include <pthread.h>
#include <signal.h>

#include <cstdlib>
#include <iostream>
#include <thread>

#include "aicost/dashboard/server.h"
#include "commands.h"

namespace aicost::app {
namespace {

struct ServeCliOptions {
  std::string db, budgets, plans, listen = "127.0.0.1:8080", token, as_of;
  std::size_t max_body = 256 * 1024;
  unsigned threads = 0;
};

int run_serve(const ServeCliOptions& c, const GlobalOptions& g) {
  dashboard::ServeOptions o;
  o.db = c.db;
  o.budgets = c.budgets;
  o.plans_dir = c.plans;
  o.token = c.token;
  if (o.token.empty())
    if (const char* t = std::getenv("AICOST_TOKEN"); t && *t) o.token = t;
  o.as_of = c.as_of;
  o.max_body_bytes = c.max_body;
  o.threads = c.threads;
  if (auto s = dashboard::parse_listen(c.listen, o.host, o.port); !s)
    return report_error(s.error(), g);
  auto cat = load_catalog(g);
  if (!cat) return report_error(cat.error(), g);
  o.catalog = std::move(*cat);
  // SIGINT and SIGTERM end the server through one thread that waits for them, so requests in
  // flight finish; blocked before the server's threads start, which inherit the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  auto server = dashboard::Server::bind(std::move(o));
  if (!server) {
    LedgerDb db;
    db.db = c.db;
    return ledger_error(server.error(), db, g);
  }
  std::cerr << "aicost serve: " << (*server)->url() << " (ledger " << store::redact(c.db)
            << ", read-only; Ctrl-C stops)" << std::endl;
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    (*server)->stop();
  });
  const bool ran = (*server)->run();
  // Stopped by other means than a signal: wake the waiter, which blocks in sigwait for SIGTERM
  // (the signal is blocked in every thread, so it ends nothing: the check's concern does not
  // apply).
  pthread_kill(waiter.native_handle(), SIGTERM);  // NOLINT(bugprone-bad-signal-to-kill-thread)
  waiter.join();
  return ran ? 0 : 1;
}

}  // namespace

Command serve_command() {
  return {
      "serve",
      "a local dashboard over a ledger: spend, budgets, anomalies, waste, plans, what-if; /api "
      "JSON and /metrics",
      [](CLI::App& sub, const GlobalOptions& g) -> std::function<int()> {
        auto o = std::make_shared<ServeCliOptions>();
        o->db = store::default_db();
        sub.add_option("--db", o->db,
                       "the ledger, opened read-only (as for aicost ledger; also $AICOST_DB)")
            ->default_str(store::redact(o->db));
        sub.add_option(
            "--budgets", o->budgets,
            "the budget file of aicost ledger check: the budget, anomaly, waste and plan pages");
        sub.add_option("--plans", o->plans,
                       "a folder of plan files (*.yaml) to start the what-if page from");
        sub.add_option(
               "--listen", o->listen,
               "HOST:PORT to listen on (:0 any free port); off loopback a token is required")
            ->capture_default_str();
        sub.add_option("--token", o->token,
                       "every request must send it (Authorization: Bearer TOKEN, or ?token=TOKEN "
                       "once in a browser); "
                       "also $AICOST_TOKEN");
        sub.add_option("--as-of", o->as_of, "the checks' day, YYYY-MM-DD (default: today, UTC)");
        sub.add_option("--max-body", o->max_body, "bytes a request body may have (a posted plan)")
            ->capture_default_str();
        sub.add_option("--threads", o->threads, "threads a read of a large SQLite ledger may use")
            ->check(CLI::Range(1u, 1024u));
        sub.footer(
            "Example: aicost serve --db gov.db --budgets examples/governance/budgets.yaml --as-of "
            "2025-06-28\n"
            "then open http://127.0.0.1:8080/ (Ctrl-C stops).");
        return [o, &g] { return run_serve(*o, g); };
      }};
}

}  // namespace aicost::app
