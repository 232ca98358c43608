// Webhook delivery against a real local HTTP server (cpp-httplib) on 127.0.0.1; waits between
// attempts go through the injected `sleep`, so no test sleeps for its backoffs. Checks that need no
// server (URLs, Retry-After, the delivery bound): webhook_url_test.cc.
#include "aicost/notify/webhook.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace aicost::notify {
namespace {

using std::chrono::milliseconds;

struct Received {
  std::string body;
  std::string content_type;
  size_t content_type_count = 0;
  std::string authorization;
};

// A server on a free loopback port. Each test installs its handler with on_post() before start().
class WebhookTest : public ::testing::Test {
 protected:
  void start() {
    port_ = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }

  void TearDown() override {
    if (!thread_.joinable()) return;
    // stop() is a no-op until the accept loop runs; wait (bounded) for it so join() cannot hang.
    for (int i = 0; i < 2000 && !server_.is_running(); ++i) {
      std::this_thread::sleep_for(milliseconds(1));
    }
    server_.stop();
    thread_.join();
  }

  // Answers the n-th POST with statuses[n] (the last one repeats), recording what arrived.
  void answer_with(const std::vector<int>& statuses, const std::string& retry_after = {}) {
    server_.Post("/hook", [this, statuses, retry_after](const httplib::Request& req,
                                                        httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      received_.push_back({req.body, req.get_header_value("Content-Type"),
                           req.get_header_value_count("Content-Type"),
                           req.get_header_value("Authorization")});
      const size_t n = std::min(received_.size() - 1, statuses.size() - 1);
      res.status = statuses[n];
      if (!retry_after.empty() && res.status != 200) res.set_header("Retry-After", retry_after);
      res.set_content("ok", "text/plain");
    });
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hook"; }

  std::vector<Received> received() {
    std::lock_guard<std::mutex> lock(mu_);
    return received_;
  }

  // Options whose waits are recorded in waits_ instead of slept.
  WebhookOptions recording_options() {
    WebhookOptions o;
    o.timeout = milliseconds(1000);
    o.sleep = [this](milliseconds w) { waits_.push_back(w); };
    return o;
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mu_;
  std::vector<Received> received_;
  std::vector<milliseconds> waits_;
};

// A loopback port nobody listens on: bind to port 0, read the port the kernel chose, close it.
int closed_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  EXPECT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  EXPECT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  ::close(fd);
  return ntohs(addr.sin_port);
}

TEST_F(WebhookTest, DeliversBodyContentTypeAndExtraHeaderOnFirstTry) {
  answer_with({200});
  start();
  WebhookOptions o = recording_options();
  // The Content-Type among the extras is dropped: the body is JSON whatever the caller says.
  o.headers = {{"Authorization", "Bearer t0ken"}, {"content-type", "text/plain"}};
  const std::string body = R"({"alert":"budget","level":0.8,"text":"caf\u00e9 \"quoted\""})";

  auto r = post_json(url(), body, o);

  ASSERT_TRUE(r) << r.error().what();
  EXPECT_TRUE(r->delivered);
  EXPECT_EQ(r->attempts, 1);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->error, "");
  EXPECT_TRUE(waits_.empty());
  auto got = received();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].body, body);
  EXPECT_EQ(got[0].content_type, "application/json");
  EXPECT_EQ(got[0].content_type_count, 1u);
  EXPECT_EQ(got[0].authorization, "Bearer t0ken");
}

TEST_F(WebhookTest, RetriesServerErrorsWithExponentialBackoff) {
  answer_with({503, 503, 200});
  start();
  WebhookOptions o = recording_options();  // backoff 500 ms: waits 500 * 2^0, 500 * 2^1

  auto r = post_json(url(), "{}", o);

  ASSERT_TRUE(r) << r.error().what();
  EXPECT_TRUE(r->delivered);
  EXPECT_EQ(r->attempts, 3);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->error, "");
  EXPECT_EQ(waits_, (std::vector<milliseconds>{milliseconds(500), milliseconds(1000)}));
  EXPECT_EQ(received().size(), 3u);
}

TEST_F(WebhookTest, BackoffIsCappedAtMaxBackoffAndGivesUpWithLastStatus) {
  answer_with({500});
  start();
  WebhookOptions o = recording_options();
  o.attempts = 5;
  o.backoff = milliseconds(500);
  o.max_backoff = milliseconds(1500);  // 500, 1000, 2000 -> 1500, 4000 -> 1500

  auto r = post_json(url(), "{}", o);

  ASSERT_TRUE(r) << r.error().what();
  EXPECT_FALSE(r->delivered);
  EXPECT_EQ(r->attempts, 5);
  EXPECT_EQ(r->status, 500);
  EXPECT_EQ(r->error, "HTTP 500 Internal Server Error");
  EXPECT_EQ(waits_, (std::vector<milliseconds>{milliseconds(500), milliseconds(1000),
                                               milliseconds(1500), milliseconds(1500)}));
}

TEST_F(WebhookTest, HonoursRetryAfterSecondsOn429) {
  answer_with({429, 200}, "2");
  start();
  WebhookOptions o = recording_options();  // max_backoff 8000 ms does not bite

  auto r = post_json(url(), "{}", o);

  ASSERT_TRUE(r) << r.error().what();
  EXPECT_TRUE(r->delivered);
  EXPECT_EQ(r->attempts, 2);
  EXPECT_EQ(waits_, std::vector<milliseconds>{milliseconds(2000)});
}

// Retry-After is honoured as the server asks, past max_backoff (which caps only aicost's own
// backoff): a Slack rate limit asks for tens of seconds.
TEST_F(WebhookTest, HonoursRetryAfterLongerThanTheBackoffCap) {
  answer_with({429, 200}, "30");
  start();
  WebhookOptions o = recording_options();  // max_backoff 8 s

  auto r = post_json(url(), "{}", o);

  ASSERT_TRUE(r) << r.error().what();
  EXPECT_TRUE(r->delivered);
  EXPECT_EQ(waits_, std::vector<milliseconds>{milliseconds(30000)});
}

// A server that asks for longer than max_retry_after is not tried again before it asked (that
// would be refused again): the delivery stops and says why; the caller retries later.
TEST_F(WebhookTest, RetryAfterBeyondTheCapStopsRetrying) {
  answer_with({429, 200}, "600");
  start();
  WebhookOptions o = recording_options();  // max_retry_after 60 s

  auto r = post_json(url(), "{}", o);

  ASSERT_TRUE(r) << r.error().what();
  EXPECT_FALSE(r->delivered);
  EXPECT_EQ(r->attempts, 1);
  EXPECT_EQ(r->status, 429);
  EXPECT_EQ(
      r->error,
      "HTTP 429 Too Many Requests; the server asks to be tried again in 600 s, more than the 60 s "
      "aicost waits");
  EXPECT_TRUE(waits_.empty());
  EXPECT_EQ(received().size(), 1u);
}

// Retry-After as an HTTP-date: the wait runs to that moment on the injected clock.
TEST_F(WebhookTest, HonoursRetryAfterAsAnHttpDate) {
  answer_with({503, 200}, "Wed, 21 Oct 2015 07:28:00 GMT");
  start();
  WebhookOptions o = recording_options();
  o.now = [] {  // 20 s before the date asked for
    using namespace std::chrono;
    return sys_days(year(2015) / 10 / 21) + hours(7) + minutes(27) + seconds(40);
  };

  auto r = post_json(url(), "{}", o);

  ASSERT_TRUE(r) << r.error().what();
  EXPECT_TRUE(r->delivered);
  EXPECT_EQ(waits_, std::vector<milliseconds>{milliseconds(20000)});
}

TEST_F(WebhookTest, DoesNotRetryClientErrors) {
  answer_with({400, 200});
  start();
  WebhookOptions o = recording_options();

  auto r = post_json(url(), "{}", o);

  ASSERT_TRUE(r) << r.error().what();
  EXPECT_FALSE(r->delivered);
  EXPECT_EQ(r->attempts, 1);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(r->error, "HTTP 400 Bad Request");
  EXPECT_TRUE(waits_.empty());
  EXPECT_EQ(received().size(), 1u);
}

TEST_F(WebhookTest, GivesUpAfterAllAttemptsWhenNothingListens) {
  const int port = closed_port();
  WebhookOptions o = recording_options();
  o.attempts = 3;
  o.timeout = milliseconds(200);

  const auto start = std::chrono::steady_clock::now();
  auto r = post_json("http://127.0.0.1:" + std::to_string(port) + "/hook", "{}", o);
  const auto took = std::chrono::steady_clock::now() - start;

  ASSERT_TRUE(r) << r.error().what();
  EXPECT_FALSE(r->delivered);
  EXPECT_EQ(r->attempts, 3);
  EXPECT_EQ(r->status, 0);
  EXPECT_NE(r->error.find("127.0.0.1:" + std::to_string(port)), std::string::npos) << r->error;
  EXPECT_EQ(waits_, (std::vector<milliseconds>{milliseconds(500), milliseconds(1000)}));
  // Refused connections fail at once; 3 x 200 ms is the bound, a generous margin on top.
  EXPECT_LT(took, std::chrono::seconds(2));
}

TEST_F(WebhookTest, RetriesWhenServerIsSlowerThanTimeout) {
  server_.Post("/hook", [this](const httplib::Request&, httplib::Response& res) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      received_.push_back({});
    }
    std::this_thread::sleep_for(milliseconds(250));
    res.set_content("late", "text/plain");
  });
  start();
  WebhookOptions o = recording_options();
  o.attempts = 2;
  o.timeout = milliseconds(100);

  auto r = post_json(url(), "{}", o);

  ASSERT_TRUE(r) << r.error().what();
  EXPECT_FALSE(r->delivered);
  EXPECT_EQ(r->attempts, 2);
  EXPECT_EQ(r->status, 0);
  EXPECT_NE(r->error.find("timed out"), std::string::npos) << r->error;
  EXPECT_NE(r->error.find("100 ms"), std::string::npos) << r->error;
  EXPECT_EQ(waits_, std::vector<milliseconds>{milliseconds(500)});
  EXPECT_EQ(received().size(), 2u);
}

TEST_F(WebhookTest, HttpsToPlainHttpServerFailsTlsWithoutCrashing) {
  server_.set_read_timeout(milliseconds(100));  // so the server drops the TLS hello quickly
  answer_with({200});
  start();
  WebhookOptions o = recording_options();
  o.attempts = 1;
  o.timeout = milliseconds(200);

  auto r = post_json("https://127.0.0.1:" + std::to_string(port_) + "/hook", "{}", o);

  ASSERT_TRUE(r) << r.error().what();
  EXPECT_FALSE(r->delivered);
  EXPECT_EQ(r->attempts, 1);
  EXPECT_EQ(r->status, 0);
  EXPECT_FALSE(r->error.empty());
  EXPECT_TRUE(received().empty());
}

}  // namespace
}  // namespace aicost::notify
