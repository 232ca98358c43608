// `aicost serve` (dashboard/server.h): binding, the token, the ledger and the cached check; the
// pages and /api answers are in routes.cc.
#include "aicost/dashboard/server.h"

#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <thread>

#include "aicost/store/open.h"
#include "server_impl.h"

namespace aicost::dashboard {

namespace {

constexpr int kListenBacklog =
    512;  // connections waiting to be accepted (the kernel caps it at somaxconn)

}  // namespace

api::LedgerCheckOptions check_options(const ServeOptions& o) {
  api::LedgerCheckOptions c;
  c.budgets = o.budgets;
  c.as_of = o.as_of;
  c.dry_run = true;
  return c;
}

std::string plan_name(const std::string& asked) {
  const bool plain =
      !asked.empty() && asked.size() <= 100 && asked.front() != '.' &&
      std::all_of(asked.begin(), asked.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
      });
  return plain ? asked : "what-if.yaml";
}

core::Error Server::Impl::scrub(core::Error e) const {
  e.message = store::scrub(e.message, o.db);
  e.context = store::scrub(e.context, o.db);
  if (e.location) e.location->file = store::scrub(e.location->file, o.db);
  return e;
}

core::Result<std::unique_ptr<ledger::Store>> Server::Impl::open() const {
  store::StoreOptions so;
  so.mode = store::OpenMode::kReadOnly;
  so.scan_threads = o.threads;
  auto s = store::open_store(o.db, so);
  if (!s) return scrub(s.error().with_context("--db"));
  return s;
}

std::string Server::Impl::state(ledger::Day day) const {
  if (store::is_postgres_url(o.db)) return "";
  std::string key = std::to_string(day);
  for (const std::string& f : {o.budgets, o.db, o.db + "-wal"}) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(f, ec);
    const auto time = std::filesystem::last_write_time(f, ec);
    key +=
        "|" + (ec ? std::string("-")
                  : std::to_string(size) + "@" + std::to_string(time.time_since_epoch().count()));
  }
  return key;
}
std::string Server::Impl::state() const {
  const auto day = api::as_of_day(o.as_of);
  return day ? state(*day) : "";
}

core::Result<governance::CheckResult> Server::Impl::check() const {
  if (o.budgets.empty())
    return core::make_error(core::ErrorCode::kNotFound,
                            "this page needs a budget file: start aicost serve with --budgets FILE "
                            "(docs/GOVERNANCE.md)");
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

core::Result<governance::CheckResult> Server::Impl::run_check(
    const config::BudgetFile& file) const {
  auto store = open();
  if (!store) return store.error();
  auto r = api::read_check(**store, file);
  if (!r) return scrub(r.error());
  return r;
}

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
                            "'" + text +
                                "' is not an address; write HOST:PORT, e.g. 127.0.0.1:8080 "
                                "([::1]:8080, :0 for any free port)",
                            "--listen");
  };
  if (colon == std::string::npos) return bad();
  host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
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
                            "serving on " + options.host +
                                " lets other machines read the ledger: give a token "
                                "(--token or $AICOST_TOKEN), which every request must then send, "
                                "or listen on 127.0.0.1",
                            "--listen");
  auto impl = std::make_unique<Impl>();
  impl->o = std::move(options);
  if (!impl->o.budgets.empty())
    if (auto b = api::check_budgets(check_options(impl->o)); !b) return b.error();
  if (auto s = impl->open(); !s) return s.error();
  if (!impl->o.plans_dir.empty()) {
    std::error_code ec;
    std::filesystem::directory_iterator it(impl->o.plans_dir, ec), end;
    if (ec)
      return core::make_error(core::ErrorCode::kIo, "cannot read the folder: " + ec.message(),
                              "--plans " + impl->o.plans_dir);
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
    return core::make_error(
        core::ErrorCode::kIo,
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
  return "http://" + (h.find(':') != std::string::npos ? "[" + h + "]" : h) + ":" +
         std::to_string(impl_->port) + "/";
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
