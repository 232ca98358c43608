// Private to src/dashboard: what `aicost serve` keeps (Server::Impl), shared by server.cc (binding,
// the ledger, the cached check) and routes.cc (the pages and /api answers).
#pragma once

#include <httplib.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "aicost/api/api.h"
#include "aicost/api/ledger.h"
#include "aicost/dashboard/answer_cache.h"
#include "aicost/dashboard/server.h"
#include "pages.h"

namespace aicost::dashboard {

// The dashboard's check reads as `aicost ledger check --dry-run` with the same --as-of.
api::LedgerCheckOptions check_options(const ServeOptions& o);
// A plan's name in messages: a file name the CLI would quote, never a path.
std::string plan_name(const std::string& asked);

struct Server::Impl {
  ServeOptions o;
  httplib::Server http;
  int port = 0;
  std::atomic<bool> started{false};
  mutable std::mutex check_mu;  // guards the two below
  mutable std::string cached_key;
  mutable std::shared_ptr<const governance::CheckResult> cached;
  mutable AnswerCache answers;                   // the GET answers, per state()
  int listen_fd = -1;                            // the listening socket, once bound
  std::map<std::string, api::PlanSource> plans;  // --plans, by file name
  std::vector<std::string> plan_names;

  // server.cc: the ledger and the check.
  core::Error scrub(core::Error e) const;
  core::Result<std::unique_ptr<ledger::Store>> open() const;
  // What every answer depends on, for a SQLite ledger: the day, and the size and modification
  // time of the budget file, the ledger and its write-ahead log (every commit changes one of them).
  // Empty for PostgreSQL: its answers are not kept.
  std::string state(ledger::Day day) const;
  std::string state() const;
  // The check, made once for each state of its inputs: requests that come together wait for one
  // computation and share it (a check reads the whole period's spend).
  core::Result<governance::CheckResult> check() const;
  core::Result<governance::CheckResult> run_check(const config::BudgetFile& file) const;

  // routes.cc: the pages and answers.
  void routes();
  static core::Result<ledger::ReportRequest> report_query(const httplib::Request& req,
                                                          const char* default_by,
                                                          const char* default_granularity);
  core::Result<api::PlanSource> posted_plan(const std::string& asked_name, std::string text) const;
  void json_error(httplib::Response& res, const core::Error& e) const;
  static void html(httplib::Response& res, const std::string& page, int status = 200);
  httplib::Server::Handler answer(httplib::Server::Handler handler, bool keep = true) const;
  static void send(httplib::Response& res, std::shared_ptr<const Answer> answer);
  void whatif(WhatIf& w, const api::PlanSource& src, httplib::Response& res) const;
  void check_page(Page page, httplib::Response& res) const;
};

}  // namespace aicost::dashboard
