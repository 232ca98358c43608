// `aicost serve`'s pages and /api answers (Server::Impl::routes), each an api call behind a page.
#include <algorithm>
#include <optional>
#include <sstream>

#include "aicost/config/plan_files.h"
#include "aicost/report/error_report.h"
#include "aicost/report/governance_report.h"
#include "aicost/report/html.h"
#include "aicost/report/ledger_report.h"
#include "server_impl.h"

namespace aicost::dashboard {

namespace {

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
int plan_status(const core::Error& e) {
  return e.code == core::ErrorCode::kInternal || e.code == core::ErrorCode::kIo ? 500 : 400;
}

std::string cookie_token(const httplib::Request& req) {
  const std::string cookies = req.get_header_value("Cookie");
  const std::string key = "aicost_token=";
  for (std::size_t at = cookies.find(key); at != std::string::npos;
       at = cookies.find(key, at + 1)) {
    if (at != 0 && cookies[at - 1] != ' ' && cookies[at - 1] != ';') continue;
    const auto end = cookies.find(';', at);
    return cookies.substr(at + key.size(),
                          end == std::string::npos ? std::string::npos : end - at - key.size());
  }
  return "";
}

// `?limit=N` of /api/check and /metrics: `aicost ledger check --limit N` (0 or none: all).
core::Result<std::size_t> limit_query(const httplib::Request& req) {
  if (!req.has_param("limit")) return std::size_t{0};
  const std::string limit = req.get_param_value("limit");
  if (limit.empty() || limit.size() > 9 || !std::all_of(limit.begin(), limit.end(), ::isdigit))
    return core::make_error(core::ErrorCode::kInvalidInput,
                            "'" + limit + "' is not a count; write limit=N", "--limit");
  return static_cast<std::size_t>(std::stoul(limit));
}

}  // namespace

// The query string as `aicost ledger report`'s options.
core::Result<ledger::ReportRequest> Server::Impl::report_query(const httplib::Request& req,
                                                               const char* default_by,
                                                               const char* default_granularity) {
  api::LedgerReportOptions q;
  q.by = req.has_param("by") ? req.get_param_value("by") : default_by;
  q.from = req.get_param_value("from");
  q.to = req.get_param_value("to");
  if (req.has_param("granularity"))
    q.granularity = req.get_param_value("granularity");
  else
    q.granularity = default_granularity;
  if (req.has_param("top")) {
    const std::string top = req.get_param_value("top");
    if (top.empty() || top.size() > 9 || !std::all_of(top.begin(), top.end(), ::isdigit))
      return core::make_error(core::ErrorCode::kInvalidInput,
                              "'" + top + "' is not a count; write top=N", "--top");
    q.top = std::stoul(top);
  }
  for (std::size_t i = 0; i < req.get_param_value_count("filter"); ++i)
    q.filters.push_back(req.get_param_value("filter", i));
  for (std::size_t i = 0; i < req.get_param_value_count("alias"); ++i)
    q.aliases.push_back(req.get_param_value("alias", i));
  q.useful = req.get_param_value("useful") == "1" || req.get_param_value("useful") == "true";
  return api::ledger_report_request(q);
}

// A posted plan: its text, the name errors give it. The text of a --plans file, unchanged and
// posted under its name, runs as that file (it may name files beside it); any other text may not
// name files.
core::Result<api::PlanSource> Server::Impl::posted_plan(const std::string& asked_name,
                                                        std::string text) const {
  const std::string name = plan_name(asked_name);
  // Browsers post a textarea's lines ending in CR LF.
  text.erase(std::remove(text.begin(), text.end(), '\r'), text.end());
  if (const auto it = plans.find(name); it != plans.end() && it->second.text == text)
    return it->second;
  if (auto s = config::forbid_plan_files(text, name); !s) return s.error();
  return api::PlanSource{std::move(text), name, "."};
}

void Server::Impl::json_error(httplib::Response& res, const core::Error& e) const {
  res.status = http_status(e);
  res.set_content(report::render_error_json(e), "application/json");
}

void Server::Impl::html(httplib::Response& res, const std::string& page, int status) {
  res.status = status;
  res.set_content(page, "text/html; charset=utf-8");
}

// `handler`'s answer, sent as made (send). `keep`: kept for the ledger's state (AnswerCache), so
// a GET page or /api answer is made once per ingest, not per request; the query's token is left
// out of the request's key.
httplib::Server::Handler Server::Impl::answer(httplib::Server::Handler handler, bool keep) const {
  return [this, keep, handler = std::move(handler)](const httplib::Request& req,
                                                    httplib::Response& res) {
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
void Server::Impl::send(httplib::Response& res, std::shared_ptr<const Answer> answer) {
  res.status = answer->status;
  if (answer->body.empty()) return;
  const std::size_t size = answer->body.size();
  const std::string type = answer->content_type;
  res.set_content_provider(size, type,
                           [answer = std::move(answer)](std::size_t offset, std::size_t length,
                                                        httplib::DataSink& sink) {
                             sink.write(answer->body.data() + offset,
                                        std::min(length, answer->body.size() - offset));
                             return true;
                           });
}

// The what-if page of `src`: `aicost estimate` and, when it succeeds, `aicost optimize`.
void Server::Impl::whatif(WhatIf& w, const api::PlanSource& src, httplib::Response& res) const {
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

void Server::Impl::check_page(Page page, httplib::Response& res) const {
  auto r = check();
  if (!r) return html(res, error_page(page, r.error()), http_status(r.error()));
  html(res, dashboard::check_page(page, *r, plan_names));
}

void Server::Impl::routes() {
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
      if (by_query)
        res.set_header("Set-Cookie",
                       "aicost_token=" + o.token + "; HttpOnly; SameSite=Strict; Path=/");
      return httplib::Server::HandlerResponse::Unhandled;
    }
    res.status = 401;
    res.set_header("WWW-Authenticate", "Bearer realm=\"aicost\"");
    res.set_content(
        report::render_error_json(core::make_error(
            core::ErrorCode::kInvalidInput,
            "this aicost serve asks for its token: send Authorization: Bearer TOKEN, or open "
            "/?token=TOKEN once in a browser")),
        "application/json");
    return httplib::Server::HandlerResponse::Handled;
  });
  http.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty() || res.has_header("Content-Type")) return;  // a handler's answer
    std::string what = "no page at " + req.path +
                       "; the pages are /, /budgets, /anomalies, /waste, /plans, /whatif, "
                       "/api/report, /api/check, /api/estimate, /api/optimize, /metrics";
    if (res.status == 413)
      what = "the request body is larger than this server takes (--max-body)";
    else if (res.status != 404)
      what = "the request could not be served (HTTP " + std::to_string(res.status) + ")";
    res.set_content(
        report::render_error_json(core::make_error(
            res.status == 404 ? core::ErrorCode::kNotFound : core::ErrorCode::kInvalidInput, what)),
        "application/json");
  });

  http.Get("/", answer([this](const httplib::Request& req, httplib::Response& res) {
             auto q = report_query(req, "service", "day");
             if (!q) return html(res, error_page(Page::kOverview, q.error()), 400);
             if (!req.has_param("top")) q->top = 8;
             auto store = open();
             if (!store)
               return html(res, error_page(Page::kOverview, store.error()),
                           http_status(store.error()));
             auto spend = ledger::run_report(**store, *q);
             if (!spend)
               return html(res, error_page(Page::kOverview, scrub(spend.error())),
                           http_status(spend.error()));
             std::optional<governance::CheckResult> c;
             if (!o.budgets.empty()) {
               auto r = check();
               if (!r)
                 return html(res, error_page(Page::kOverview, r.error()), http_status(r.error()));
               c = std::move(*r);
             }
             const std::string by = req.has_param("by") ? req.get_param_value("by") : "service";
             html(res, overview_page(*spend, c ? &*c : nullptr, by));
           }));
  http.Get("/budgets", answer([this](const httplib::Request&, httplib::Response& res) {
             check_page(Page::kBudgets, res);
           }));
  http.Get("/anomalies", answer([this](const httplib::Request&, httplib::Response& res) {
             check_page(Page::kAnomalies, res);
           }));
  http.Get("/waste", answer([this](const httplib::Request&, httplib::Response& res) {
             check_page(Page::kWaste, res);
           }));
  http.Get("/plans", answer([this](const httplib::Request&, httplib::Response& res) {
             check_page(Page::kPlans, res);
           }));

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
               const auto e = core::make_error(core::ErrorCode::kNotFound,
                                               "no plan named '" + asked + "' among --plans");
               w.error = &e;
               return html(res, whatif_page(w), 404);
             }
             html(res, whatif_page(w));
           }));
  http.Post("/whatif", answer(
                           [this](const httplib::Request& req, httplib::Response& res) {
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
                           },
                           false));

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
  // `aicost ledger check -o json --dry-run [--limit N]` (nothing is sent or recorded).
  http.Get("/api/check", answer([this](const httplib::Request& req, httplib::Response& res) {
             const auto limit = limit_query(req);
             if (!limit) return json_error(res, limit.error());
             auto r = check();
             if (!r) return json_error(res, r.error());
             res.set_content(
                 report::render_check(*limit ? report::largest_waste(*r, *limit) : std::move(*r),
                                      report::Format::kJson),
                 "application/json");
           }));
  // `aicost ledger check --prometheus - [--limit N]`.
  http.Get("/metrics", answer([this](const httplib::Request& req, httplib::Response& res) {
             const auto limit = limit_query(req);
             if (!limit) return json_error(res, limit.error());
             auto r = check();
             if (!r) return json_error(res, r.error());
             res.set_content(report::render_prometheus(*limit ? report::largest_waste(*r, *limit)
                                                              : std::move(*r)),
                             "text/plain; version=0.0.4; charset=utf-8");
           }));
  // `aicost estimate|optimize PLAN -o json` of the plan in the body; ?name= names it in errors.
  const auto plan_call = [this](bool optimize) {
    return [this, optimize](const httplib::Request& req, httplib::Response& res) {
      auto src = posted_plan(req.get_param_value("name"), req.body);
      auto out = !src       ? core::Result<api::Output>(src.error())
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
  http.Get(std::string(kAssets) + R"(([A-Za-z0-9.-]+\.js))",
           [](const httplib::Request& req, httplib::Response& res) {
             for (const auto& script : report::vega_scripts()) {
               if (req.matches[1].str() != script.name) continue;
               res.set_header("Cache-Control", "public, max-age=31536000, immutable");
               const std::string_view text = script.text;
               res.set_content_provider(
                   text.size(), "text/javascript; charset=utf-8",
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
               out += (i ? ", \"" : "\"") + plan_names[i] +
                      "\"";  // names are [A-Za-z0-9._-] (plan_name)
             res.set_content(out + "]}\n", "application/json");
           }));
}

}  // namespace aicost::dashboard
