// `aicost serve` (dashboard/server.h): routes, the token, and the api calls behind each page.
#include "aicost/dashboard/server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "aicost/api/ledger.h"
#include "aicost/dashboard/answer_cache.h"
#include "aicost/config/plan_files.h"
#include "aicost/report/error_report.h"
#include "aicost/report/governance_report.h"
#include "aicost/report/html.h"
#include "aicost/report/ledger_report.h"
#include "aicost/store/open.h"
#include "pages.h"

namespace aicost::dashboard {

namespace {

constexpr int kListenBacklog = 512;  // connections waiting to be accepted (the kernel caps it at somaxconn)

// The dashboard's check reads as `aicost ledger check --dry-run` with the same --as-of.
api::LedgerCheckOptions check_options(const ServeOptions& o) {
  api::LedgerCheckOptions c;
  c.budgets = o.budgets;
  c.as_of = o.as_of;
  c.dry_run = true;
  return c;
}

int http_status(const core::Error& e) {
  switch (e.code) {
    case core::ErrorCode::kInvalidInput:
    case core::ErrorCode::kParse:
    case core::ErrorCode::kInfeasible: return 400;
    case core::ErrorCode::kNotFound: return 404;
    default: return 500;
  }
}

// What is wrong with a posted plan is the request's fault (a name the catalog lacks included),
// unless aicost itself failed.
int plan_status(const core::Error& e) { return e.code == core::ErrorCode::kInternal || e.code == core::ErrorCode::kIo ? 500 : 400; }

// A plan's name in messages: a file name the CLI would quote, never a path.
std::string plan_name(const std::string& asked) {
  const bool plain = !asked.empty() && asked.size() <= 100 && asked.front() != '.' &&
                     std::all_of(asked.begin(), asked.end(), [](char c) {
                       return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
                     });
  return plain ? asked : "what-if.yaml";
}

std::string cookie_token(const httplib::Request& req) {
  const std::string cookies = req.get_header_value("Cookie");
  const std::string key = "aicost_token=";
  for (std::size_t at = cookies.find(key); at != std::string::npos; at = cookies.find(key, at + 1)) {
    if (at != 0 && cookies[at - 1] != ' ' && cookies[at - 1] != ';') continue;
    const auto end = cookies.find(';', at);
    return cookies.substr(at + key.size(), end == std::string::npos ? std::string::npos : end - at - key.size());
  }
  return "";
}

}  // namespace

struct Server::Impl {
  ServeOptions o;
  httplib::Server http;
  int port = 0;
  std::atomic<bool> started{false};
  mutable std::mutex check_mu;  // guards the two below
  mutable std::string cached_key;
  mutable std::shared_ptr<const governance::CheckResult> cached;
  mutable AnswerCache answers;  // the GET answers, per state()
  int listen_fd = -1;           // the listening socket, once bound
  std::map<std::string, api::PlanSource> plans;  // --plans, by file name
  std::vector<std::string> plan_names;

  core::Error scrub(core::Error e) const {
    e.message = store::scrub(e.message, o.db);
    e.context = store::scrub(e.context, o.db);
    if (e.location) e.location->file = store::scrub(e.location->file, o.db);
    return e;
  }

  core::Result<std::unique_ptr<ledger::Store>> open() const {
    store::StoreOptions so;
    so.mode = store::OpenMode::kReadOnly;
    so.scan_threads = o.threads;
    auto s = store::open_store(o.db, so);
    if (!s) return scrub(s.error().with_context("--db"));
    return s;
  }

  // What every answer depends on, for a SQLite ledger: the day, and the size and modification
  // time of the budget file, the ledger and its write-ahead log (every commit changes one of them).
  // Empty for PostgreSQL: its answers are not kept.
  std::string state(ledger::Day day) const {
    if (store::is_postgres_url(o.db)) return "";
    std::string key = std::to_string(day);
    for (const std::string& f : {o.budgets, o.db, o.db + "-wal"}) {
      std::error_code ec;
      const auto size = std::filesystem::file_size(f, ec);
      const auto time = std::filesystem::last_write_time(f, ec);
      key += "|" + (ec ? std::string("-") : std::to_string(size) + "@" + std::to_string(time.time_since_epoch().count()));
    }
    return key;
  }
  std::string state() const {
    const auto day = api::as_of_day(o.as_of);
    return day ? state(*day) : "";
  }

  // The check, made once for each state of its inputs: requests that come together wait for one
  // computation and share it (a check reads the whole period's spend).
  core::Result<governance::CheckResult> check() const {
    if (o.budgets.empty())
      return core::make_error(core::ErrorCode::kNotFound,
                              "this page needs a budget file: start aicost serve with --budgets FILE (docs/GOVERNANCE.md)");
    auto file = api::check_budgets(check_options(o));
    if (!file) return file.error();
    const std::string key = state(file->options.as_of);
    if (key.empty()) return run_check(*file);
    std::lock_guard lock(check_mu);
    if (key != cached_key || !cached) {
      auto r = run_check(*file);
      if (!r) return r;
      cached = std::make_shared<const governance::CheckResult>(std::move(*r));
      cached_key = key;
    }
    return *cached;
  }

  core::Result<governance::CheckResult> run_check(const config::BudgetFile& file) const {
    auto store = open();
    if (!store) return store.error();
    auto r = api::read_check(**store, file);
    if (!r) return scrub(r.error());
    return r;
  }

  // The query string as `aicost ledger report`'s options.
  static core::Result<ledger::ReportRequest> report_query(const httplib::Request& req, const char* default_by,
                                                          const char* default_granularity) {
    api::LedgerReportOptions q;
    q.by = req.has_param("by") ? req.get_param_value("by") : default_by;
    q.from = req.get_param_value("from");
    q.to = req.get_param_value("to");
    if (req.has_param("granularity")) q.granularity = req.get_param_value("granularity");
    else q.granularity = default_granularity;
    if (req.has_param("top")) {
      const std::string top = req.get_param_value("top");
      if (top.empty() || top.size() > 9 || !std::all_of(top.begin(), top.end(), ::isdigit))
        return core::make_error(core::ErrorCode::kInvalidInput, "'" + top + "' is not a count; write top=N", "--top");
      q.top = std::stoul(top);
    }
    for (std::size_t i = 0; i < req.get_param_value_count("filter"); ++i) q.filters.push_back(req.get_param_value("filter", i));
    for (std::size_t i = 0; i < req.get_param_value_count("alias"); ++i) q.aliases.push_back(req.get_param_value("alias", i));
    q.useful = req.get_param_value("useful") == "1" || req.get_param_value("useful") == "true";
    return api::ledger_report_request(q);
  }

  // A posted plan: its text, the name errors give it. The text of a --plans file, unchanged and
  // posted under its name, runs as that file (it may name files beside it); any other text may not
  // name files.
  core::Result<api::PlanSource> posted_plan(const std::string& asked_name, std::string text) const {
    const std::string name = plan_name(asked_name);
    // Browsers post a textarea's lines ending in CR LF.
    text.erase(std::remove(text.begin(), text.end(), '\r'), text.end());
    if (const auto it = plans.find(name); it != plans.end() && it->second.text == text) return it->second;
    if (auto s = config::forbid_plan_files(text, name); !s) return s.error();
    return api::PlanSource{std::move(text), name, "."};
  }

  void json_error(httplib::Response& res, const core::Error& e) const {
    res.status = http_status(e);
    res.set_content(report::render_error_json(e), "application/json");
  }
  static void html(httplib::Response& res, const std::string& page, int status = 200) {
    res.status = status;
    res.set_content(page, "text/html; charset=utf-8");
  }

  // `handler`'s answer, sent as made (send). `keep`: kept for the ledger's state (AnswerCache), so
  // a GET page or /api answer is made once per ingest, not per request; the query's token is left
  // out of the request's key.
  httplib::Server::Handler answer(httplib::Server::Handler handler, bool keep = true) const {
    return [this, keep, handler = std::move(handler)](const httplib::Request& req, httplib::Response& res) {
      const auto make = [&] {
        httplib::Response made;
        made.status = 200;
        handler(req, made);
        return Answer{made.status, made.get_header_value("Content-Type"), std::move(made.body)};
      };
      if (!keep) return send(res, std::make_shared<const Answer>(make()));
      std::string request = req.path;
      for (const auto& [k, v] : req.params)
        if (k != "token") request += std::string(1, '\0') + k + '=' + v;
      send(res, answers.get(state(), request, make));
    };
  }
  // The answer's bytes as they are. Given as a body, httplib would compress it for each request
  // whose Accept-Encoding allows (brotli at its highest quality: 5 s for a page on a loaded 2-core
  // machine, where the page itself takes 10 ms); given by a provider with its length, it is sent
  // as it is, with no copy.
  static void send(httplib::Response& res, std::shared_ptr<const Answer> answer) {
    res.status = answer->status;
    if (answer->body.empty()) return;
    const std::size_t size = answer->body.size();
    const std::string type = answer->content_type;
    res.set_content_provider(size, type, [answer = std::move(answer)](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
      sink.write(answer->body.data() + offset, std::min(length, answer->body.size() - offset));
      return true;
    });
  }

  // The what-if page of `src`: `aicost estimate` and, when it succeeds, `aicost optimize`.
  void whatif(WhatIf& w, const api::PlanSource& src, httplib::Response& res) const {
    api::EstimateOptions eo;
    eo.charts = true;
    const auto est = api::estimate(src, o.catalog, report::Format::kTable, eo);
    std::optional<core::Result<api::Output>> opt;
    if (est) {
      api::OptimizeOptions oo;
      oo.charts = true;
      opt = api::optimize(src, o.catalog, report::Format::kTable, oo);
    }
    const core::Error* error = !est ? &est.error() : !*opt ? &opt->error() : nullptr;
    w.error = error;
    if (est) w.estimate = &*est;
    if (opt && *opt) w.optimize = &**opt;
    html(res, whatif_page(w), error ? plan_status(*error) : 200);
  }

  void check_page(Page page, httplib::Response& res) const {
    auto r = check();
    if (!r) return html(res, error_page(page, r.error()), http_status(r.error()));
    html(res, dashboard::check_page(page, *r, plan_names));
  }

  void routes() {
    http.set_payload_max_length(o.max_body_bytes);
    http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      if (o.token.empty()) return httplib::Server::HandlerResponse::Unhandled;
      std::string given = cookie_token(req);
      const std::string auth = req.get_header_value("Authorization");
      if (auth.rfind("Bearer ", 0) == 0) given = auth.substr(7);
      const bool by_query = req.has_param("token");
      if (by_query) given = req.get_param_value("token");
      if (same_token(given, o.token)) {
        // A link with ?token= lets a browser in; the cookie keeps it in for the other pages.
        if (by_query) res.set_header("Set-Cookie", "aicost_token=" + o.token + "; HttpOnly; SameSite=Strict; Path=/");
        return httplib::Server::HandlerResponse::Unhandled;
      }
      res.status = 401;
      res.set_header("WWW-Authenticate", "Bearer realm=\"aicost\"");
      res.set_content(report::render_error_json(core::make_error(
                          core::ErrorCode::kInvalidInput,
                          "this aicost serve asks for its token: send Authorization: Bearer TOKEN, or open "
                          "/?token=TOKEN once in a browser")),
                      "application/json");
      return httplib::Server::HandlerResponse::Handled;
    });
    http.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
      if (!res.body.empty() || res.has_header("Content-Type")) return;  // a handler's answer
      std::string what = "no page at " + req.path + "; the pages are /, /budgets, /anomalies, /waste, /plans, /whatif, "
                         "/api/report, /api/check, /api/estimate, /api/optimize, /metrics";
      if (res.status == 413) what = "the request body is larger than this server takes (--max-body)";
      else if (res.status != 404) what = "the request could not be served (HTTP " + std::to_string(res.status) + ")";
      res.set_content(report::render_error_json(core::make_error(
                          res.status == 404 ? core::ErrorCode::kNotFound : core::ErrorCode::kInvalidInput, what)),
                      "application/json");
    });

    http.Get("/", answer([this](const httplib::Request& req, httplib::Response& res) {
      auto q = report_query(req, "service", "day");
      if (!q) return html(res, error_page(Page::kOverview, q.error()), 400);
      if (!req.has_param("top")) q->top = 8;
      auto store = open();
      if (!store) return html(res, error_page(Page::kOverview, store.error()), http_status(store.error()));
      auto spend = ledger::run_report(**store, *q);
      if (!spend) return html(res, error_page(Page::kOverview, scrub(spend.error())), http_status(spend.error()));
      std::optional<governance::CheckResult> c;
      if (!o.budgets.empty()) {
        auto r = check();
        if (!r) return html(res, error_page(Page::kOverview, r.error()), http_status(r.error()));
        c = std::move(*r);
      }
      const std::string by = req.has_param("by") ? req.get_param_value("by") : "service";
      html(res, overview_page(*spend, c ? &*c : nullptr, by));
    }));
    http.Get("/budgets", answer([this](const httplib::Request&, httplib::Response& res) { check_page(Page::kBudgets, res); }));
    http.Get("/anomalies", answer([this](const httplib::Request&, httplib::Response& res) { check_page(Page::kAnomalies, res); }));
    http.Get("/waste", answer([this](const httplib::Request&, httplib::Response& res) { check_page(Page::kWaste, res); }));
    http.Get("/plans", answer([this](const httplib::Request&, httplib::Response& res) { check_page(Page::kPlans, res); }));

    http.Get("/whatif", answer([this](const httplib::Request& req, httplib::Response& res) {
      WhatIf w;
      w.plans = plan_names;
      const std::string asked = req.get_param_value("plan");
      if (const auto it = plans.find(asked); it != plans.end()) {
        w.name = it->first;
        w.text = it->second.text;
        // ?run=1: the plan of --plans as it is, estimated and optimised.
        if (req.get_param_value("run") == "1") return whatif(w, it->second, res);
      } else if (!asked.empty()) {
        const auto e = core::make_error(core::ErrorCode::kNotFound, "no plan named '" + asked + "' among --plans");
        w.error = &e;
        return html(res, whatif_page(w), 404);
      }
      html(res, whatif_page(w));
    }));
    http.Post("/whatif", answer([this](const httplib::Request& req, httplib::Response& res) {
      WhatIf w;
      w.plans = plan_names;
      w.name = plan_name(req.get_param_value("name"));
      w.text = req.get_param_value("plan");
      auto src = posted_plan(w.name, w.text);
      if (!src) {
        w.error = &src.error();
        return html(res, whatif_page(w), plan_status(src.error()));
      }
      whatif(w, *src, res);
    }, false));

    // The bytes of `aicost ledger report -o json` with the same options.
    http.Get("/api/report", answer([this](const httplib::Request& req, httplib::Response& res) {
      auto q = report_query(req, "", "total");
      if (!q) return json_error(res, q.error());
      auto store = open();
      if (!store) return json_error(res, store.error());
      std::ostringstream out;
      if (auto s = report::write_ledger_report(**store, *q, report::Format::kJson, out); !s)
        return json_error(res, scrub(s.error()));
      res.set_content(out.str(), "application/json");
    }));
    // `aicost ledger check -o json --dry-run` (nothing is sent or recorded).
    http.Get("/api/check", answer([this](const httplib::Request&, httplib::Response& res) {
      auto r = check();
      if (!r) return json_error(res, r.error());
      res.set_content(report::render_check(*r, report::Format::kJson), "application/json");
    }));
    // `aicost ledger check --prometheus -`.
    http.Get("/metrics", answer([this](const httplib::Request&, httplib::Response& res) {
      auto r = check();
      if (!r) return json_error(res, r.error());
      res.set_content(report::render_prometheus(*r), "text/plain; version=0.0.4; charset=utf-8");
    }));
    // `aicost estimate|optimize PLAN -o json` of the plan in the body; ?name= names it in errors.
    const auto plan_call = [this](bool optimize) {
      return [this, optimize](const httplib::Request& req, httplib::Response& res) {
        auto src = posted_plan(req.get_param_value("name"), req.body);
        auto out = !src ? core::Result<api::Output>(src.error())
                   : optimize ? api::optimize(*src, o.catalog, report::Format::kJson)
                              : api::estimate(*src, o.catalog, report::Format::kJson);
        if (!out) {
          json_error(res, out.error());
          res.status = plan_status(out.error());
          return;
        }
        res.set_content(out->text, "application/json");
      };
    };
    http.Post("/api/estimate", answer(plan_call(false), false));
    http.Post("/api/optimize", answer(plan_call(true), false));
    // The chart scripts the pages load (report::vega_scripts), by their versioned names: a browser
    // keeps them (immutable), so a page is its own charts and figures only.
    http.Get(std::string(kAssets) + R"(([A-Za-z0-9.-]+\.js))", [](const httplib::Request& req, httplib::Response& res) {
      for (const auto& script : report::vega_scripts()) {
        if (req.matches[1].str() != script.name) continue;
        res.set_header("Cache-Control", "public, max-age=31536000, immutable");
        const std::string_view text = script.text;
        res.set_content_provider(text.size(), "text/javascript; charset=utf-8",
                                 [text](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
                                   sink.write(text.data() + offset, std::min(length, text.size() - offset));
                                   return true;
                                 });
        return;
      }
      res.status = 404;  // the error handler says which pages there are
    });
    http.Get("/api/plans", answer([this](const httplib::Request&, httplib::Response& res) {
      std::string out = "{\"plans\": [";
      for (std::size_t i = 0; i < plan_names.size(); ++i)
        out += (i ? ", \"" : "\"") + plan_names[i] + "\"";  // names are [A-Za-z0-9._-] (plan_name)
      res.set_content(out + "]}\n", "application/json");
    }));
  }
};

bool is_loopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

bool same_token(std::string_view a, std::string_view b) {
  // Every byte of the longer is compared, whatever matched before.
  const std::size_t n = std::max(a.size(), b.size());
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (std::size_t i = 0; i < n; ++i)
    diff |= static_cast<unsigned char>((i < a.size() ? a[i] : 0) ^ (i < b.size() ? b[i] : 0));
  return diff == 0 && n > 0;
}

core::Status parse_listen(const std::string& text, std::string& host, int& port) {
  const auto colon = text.rfind(':');
  const auto bad = [&] {
    return core::make_error(core::ErrorCode::kInvalidInput,
                            "'" + text + "' is not an address; write HOST:PORT, e.g. 127.0.0.1:8080 ([::1]:8080, :0 for any free port)",
                            "--listen");
  };
  if (colon == std::string::npos) return bad();
  host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "127.0.0.1";
  const std::string p = text.substr(colon + 1);
  if (p.empty() || p.size() > 5 || !std::all_of(p.begin(), p.end(), ::isdigit)) return bad();
  port = std::stoi(p);
  if (port > 65535) return bad();
  return {};
}

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() { stop(); }

core::Result<std::unique_ptr<Server>> Server::bind(ServeOptions options) {
  if (!is_loopback(options.host) && options.token.empty())
    return core::make_error(core::ErrorCode::kInvalidInput,
                            "serving on " + options.host + " lets other machines read the ledger: give a token "
                            "(--token or $AICOST_TOKEN), which every request must then send, or listen on 127.0.0.1",
                            "--listen");
  auto impl = std::make_unique<Impl>();
  impl->o = std::move(options);
  if (!impl->o.budgets.empty())
    if (auto b = api::check_budgets(check_options(impl->o)); !b) return b.error();
  if (auto s = impl->open(); !s) return s.error();
  if (!impl->o.plans_dir.empty()) {
    std::error_code ec;
    std::filesystem::directory_iterator it(impl->o.plans_dir, ec), end;
    if (ec) return core::make_error(core::ErrorCode::kIo, "cannot read the folder: " + ec.message(), "--plans " + impl->o.plans_dir);
    for (; it != end; it.increment(ec)) {
      const auto& path = it->path();
      const auto ext = path.extension().string();
      if (!it->is_regular_file(ec) || (ext != ".yaml" && ext != ".yml")) continue;
      const std::string name = path.filename().string();
      if (plan_name(name) != name) continue;  // names a link or a form can carry as they are
      auto src = api::plan_file(path.string());
      if (!src) return src.error();
      src->origin = name;
      impl->plans[name] = std::move(*src);
    }
    for (const auto& [name, src] : impl->plans) impl->plan_names.push_back(name);
  }
  impl->routes();
  Impl* raw = impl.get();
  impl->http.set_socket_options([raw](socket_t sock) {
    httplib::default_socket_options(sock);
    raw->listen_fd = sock;
  });
  if (impl->o.port == 0) {
    impl->port = impl->http.bind_to_any_port(impl->o.host);
  } else if (impl->http.bind_to_port(impl->o.host, impl->o.port)) {
    impl->port = impl->o.port;
  } else {
    impl->port = -1;
  }
  if (impl->port <= 0)
    return core::make_error(core::ErrorCode::kIo,
                            "cannot listen on " + impl->o.host + ":" + std::to_string(impl->o.port) +
                                " (in use, or not an address of this machine); choose another with --listen",
                            "--listen");
  // cpp-httplib listens with a queue of 5 connections (CPPHTTPLIB_LISTEN_BACKLOG, fixed when
  // Debian built libcpp-httplib.so): a burst of a few hundred then waits for the clients' SYN
  // retries (1 s, 3 s, ...). Listening again on the bound socket sets a longer queue.
  if (raw->listen_fd >= 0) ::listen(raw->listen_fd, kListenBacklog);
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

int Server::port() const { return impl_->port; }

std::string Server::url() const {
  const std::string& h = impl_->o.host;
  return "http://" + (h.find(':') != std::string::npos ? "[" + h + "]" : h) + ":" + std::to_string(impl_->port) + "/";
}

bool Server::run() {
  impl_->started = true;
  return impl_->http.listen_after_bind();
}

void Server::stop() {
  if (!impl_) return;
  // httplib's stop() does nothing before the accept loop runs: wait (bounded) for it.
  for (int i = 0; i < 2000 && impl_->started && !impl_->http.is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  impl_->http.stop();
}

}  // namespace aicost::dashboard
