// `aicost ledger check --webhook` as cron runs it: the built binary, several processes, one ledger
// (each backend) and a local receiver (cpp-httplib). Each alert, anomaly and waste finding is
// received exactly once however the checks overlap, and one that was not delivered is sent by the
// next check.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "aicost/billing/ingest.h"
#include "aicost/config/budgets.h"
#include "aicost/governance/check.h"
#include "store/backends.h"

namespace aicost {
namespace {

const std::string kExamples = std::string(AICOST_SOURCE_DIR) + "/examples/governance/";
const std::string kBudgets = kExamples + "budgets.yaml";
const std::string kAsOf = "2025-06-28";

// The webhook's far end. With hold(), a post is answered only once a second post has come or a
// check has exited (exited()): two checks that both send each get to send before either records,
// so a run that sends twice is caught every time, not by chance. The wait is bounded so that a
// broken check cannot hang the suite; no assertion depends on it.
class Receiver {
 public:
  Receiver() {
    server_.Post("/hook", [this](const httplib::Request& req, httplib::Response& res) {
      std::unique_lock lock(mu_);
      bodies_.push_back(req.body);
      changed_.notify_all();
      changed_.wait_for(lock, std::chrono::seconds(60),
                        [&] { return !hold_ || bodies_.size() >= 2 || exited_ > 0; });
      res.status = status_;
      res.set_content("ok", "text/plain");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~Receiver() {
    // stop() is a no-op until the accept loop runs; wait (bounded) for it so join() cannot hang.
    for (int i = 0; i < 2000 && !server_.is_running(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    {
      std::lock_guard lock(mu_);
      hold_ = false;
      changed_.notify_all();
    }
    server_.stop();
    thread_.join();
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hook"; }
  void hold() {
    std::lock_guard lock(mu_);
    hold_ = true;
  }
  void answer(int status) {
    std::lock_guard lock(mu_);
    status_ = status;
  }
  void exited() {
    std::lock_guard lock(mu_);
    ++exited_;
    changed_.notify_all();
  }
  std::vector<std::string> bodies() {
    std::lock_guard lock(mu_);
    return bodies_;
  }
  void clear() {
    std::lock_guard lock(mu_);
    bodies_.clear();
  }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<std::string> bodies_;
  bool hold_ = false;
  int exited_ = 0;
  int status_ = 200;
};

class CheckWebhookTest : public testing::BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    for (const char* f : {"focus-ai-lab-2025-05-06.csv", "dcgm-ai-lab-2025-06-26.prom"}) {
      auto r = billing::ingest_file(store(), kExamples + f, {});
      ASSERT_TRUE(r) << r.error().what();
    }
    // The notices due, by key, as the check finds them on the fresh ledger.
    auto budgets = config::load_budgets(kBudgets);
    ASSERT_TRUE(budgets) << budgets.error().what();
    budgets->options.as_of = ledger::days_from_civil(2025, 6, 28);
    auto result = governance::run_check(store(), budgets->budgets, budgets->options, {});
    ASSERT_TRUE(result) << result.error().what();
    for (const auto& b : result->budgets)
      for (const auto& a : b.due) due_.insert(a.key());
    for (const auto& a : result->anomalies) due_.insert(a.key());
    for (const auto& w : result->waste) due_.insert(w.key());
    ASSERT_GT(due_.size(), 10u);
  }

  // Starts `aicost ledger check` on this test's ledger, its output into `log`.
  pid_t start_check(const std::string& log, const std::vector<std::string>& extra) {
    std::vector<std::string> args = {AICOST_BINARY,
                                     "ledger",
                                     "check",
                                     "--db",
                                     fresh_.db,
                                     "--budgets",
                                     kBudgets,
                                     "--as-of",
                                     kAsOf,
                                     "--webhook",
                                     receiver_.url(),
                                     "--webhook-attempts",
                                     "1"};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {  // only async-signal-safe calls until exec
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    return pid;
  }

  // Waits for the checks in `pids` in the order they end, telling the receiver of each; returns
  // their exit statuses by pid.
  std::map<pid_t, int> wait_all(std::set<pid_t> pids) {
    std::map<pid_t, int> out;
    while (!pids.empty()) {
      int status = 0;
      const pid_t p = ::waitpid(-1, &status, 0);
      if (p < 0) break;
      if (!pids.erase(p)) continue;
      out[p] = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      receiver_.exited();
    }
    return out;
  }

  // One check, run to its end.
  int run_check(const std::string& log, const std::vector<std::string>& extra = {}) {
    const pid_t p = start_check(log, extra);
    return wait_all({p})[p];
  }

  static std::string read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  // How often each key arrived, over every post; every notice must carry its key, by which a
  // receiver de-duplicates what a crashed check sends again.
  std::map<std::string, int> received_keys() {
    std::map<std::string, int> out;
    for (const auto& body : receiver_.bodies()) {
      const auto j = nlohmann::json::parse(body, nullptr, false);
      EXPECT_FALSE(j.is_discarded()) << body;
      if (j.is_discarded()) continue;
      for (const char* list : {"alerts", "anomalies", "waste"})
        for (const auto& item : j.value(list, nlohmann::json::array())) {
          EXPECT_TRUE(item.contains("key") && item["key"].is_string()) << item.dump();
          if (item.contains("key")) ++out[item["key"].get<std::string>()];
        }
    }
    return out;
  }

  std::map<std::string, int> each_once() const {
    std::map<std::string, int> out;
    for (const auto& k : due_) out[k] = 1;
    return out;
  }

  testing::TempDir tmp_{"aicost-check-webhook"};
  Receiver receiver_;
  std::set<std::string> due_;
};

// Two checks at once: both find the same notices due, and each notice is posted by one of them.
// Before claims, each posted all of them. Both exit 3 (a budget gates), neither fails.
TEST_P(CheckWebhookTest, TwoChecksAtOnceSendEachNoticeOnce) {
  receiver_.hold();
  const pid_t a = start_check(tmp_.file("a.log"), {});
  const pid_t b = start_check(tmp_.file("b.log"), {});
  auto status = wait_all({a, b});
  EXPECT_EQ(status[a], 3) << read(tmp_.file("a.log"));
  EXPECT_EQ(status[b], 3) << read(tmp_.file("b.log"));
  EXPECT_EQ(received_keys(), each_once());
  // Recorded: a later check sends nothing.
  receiver_.clear();
  EXPECT_EQ(run_check(tmp_.file("c.log")), 3) << read(tmp_.file("c.log"));
  EXPECT_TRUE(receiver_.bodies().empty());
}

// A dry run claims nothing; a delivery the webhook refuses releases what the check claimed; so the
// next check sends everything, once.
TEST_P(CheckWebhookTest, ARefusedDeliveryLeavesEveryNoticeForTheNextCheck) {
  EXPECT_EQ(run_check(tmp_.file("dry.log"), {"--dry-run"}), 3) << read(tmp_.file("dry.log"));
  EXPECT_TRUE(receiver_.bodies().empty());
  receiver_.answer(400);
  EXPECT_EQ(run_check(tmp_.file("refused.log")), 1) << read(tmp_.file("refused.log"));
  EXPECT_EQ(received_keys(), each_once());
  receiver_.clear();
  receiver_.answer(200);
  EXPECT_EQ(run_check(tmp_.file("next.log")), 3) << read(tmp_.file("next.log"));
  EXPECT_EQ(received_keys(), each_once());
}

INSTANTIATE_TEST_SUITE_P(Backends, CheckWebhookTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aicost
