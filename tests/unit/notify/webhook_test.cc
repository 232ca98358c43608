// Webhook delivery against a real local HTTP server (cpp-httplib) on 127.0.0.1; waits between
// attempts go through the injected `sleep`, so no test sleeps for its backoffs.
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
  void answer_with(std::vector<int> statuses, std::string retry_after = {}) {
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

TEST(PostJson, BadUrlIsAnErrorAndNoAttempt) {
  auto r = post_json("ftp://hooks.example.com/x", "{}");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, core::ErrorCode::kInvalidInput);
  EXPECT_NE(r.error().what().find("ftp://hooks.example.com/x"), std::string::npos);
}

TEST(PostJson, RejectsZeroAttempts) {
  WebhookOptions o;
  o.attempts = 0;
  auto r = post_json("http://127.0.0.1:1/", "{}", o);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, core::ErrorCode::kInvalidInput);
  EXPECT_NE(r.error().message.find("attempts"), std::string::npos) << r.error().what();
}

TEST(PostJson, RejectsHeaderValueWithLineBreak) {
  WebhookOptions o;
  o.headers = {{"X-Token", "abc\r\nX-Injected: 1"}};
  auto r = post_json("http://127.0.0.1:1/", "{}", o);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, core::ErrorCode::kInvalidInput);
  EXPECT_NE(r.error().message.find("X-Token"), std::string::npos) << r.error().what();
}

// parse_url: error message names what is wrong; what() names the URL, redacted.
void expect_url_error(std::string_view url, std::string_view fragment) {
  auto r = parse_url(url);
  ASSERT_FALSE(r) << url;
  EXPECT_EQ(r.error().code, core::ErrorCode::kInvalidInput);
  EXPECT_NE(r.error().message.find(fragment), std::string::npos)
      << url << " -> " << r.error().what();
  EXPECT_NE(r.error().what().find(redact_url(url)), std::string::npos) << r.error().what();
}

TEST(ParseUrl, RejectsUnsupportedScheme) {
  expect_url_error("ftp://x", "unsupported scheme \"ftp\"");
}

TEST(ParseUrl, RejectsMissingHost) { expect_url_error("http://", "no host"); }

TEST(ParseUrl, RejectsNonNumericPort) {
  expect_url_error("http://host:notaport/p", "port \"notaport\" is not a number in 1..65535");
}

TEST(ParseUrl, RejectsOutOfRangePort) {
  expect_url_error("http://host:70000/p", "port \"70000\" is not a number in 1..65535");
  expect_url_error("http://host:0/p", "port \"0\"");
  expect_url_error("http://host:/p", "port \"\"");
}

TEST(ParseUrl, RejectsEmpty) {
  auto r = parse_url("");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, core::ErrorCode::kInvalidInput);
  EXPECT_EQ(r.error().message, "webhook URL is empty; give an http:// or https:// URL");
}

// A rejected URL is shown with its secrets hidden (the password, and path segments and query
// values that look like tokens: Slack's /services/T.../B.../<secret>), and the message says where
// credentials go instead.
TEST(ParseUrl, RejectedUrlShowsNoSecret) {
  auto r = parse_url("https://bot:hunter2@hooks.slack.com/services/T000/B000/XXXX?token=s3cr3t");
  ASSERT_FALSE(r);
  const std::string what = r.error().what();
  for (const char* secret : {"hunter2", "bot", "T000", "B000", "XXXX", "s3cr3t"})
    EXPECT_EQ(what.find(secret), std::string::npos) << secret << " in: " << what;
  EXPECT_NE(what.find("https://***@hooks.slack.com/services/***/***/***?token=***"),
            std::string::npos)
      << what;
  EXPECT_NE(what.find("AICOST_WEBHOOK_AUTHORIZATION"), std::string::npos) << what;
  EXPECT_EQ(what.find("WebhookOptions"), std::string::npos) << what;
  auto scheme = parse_url("ftp://hooks.slack.com/services/T000/B000/XXXX");
  ASSERT_FALSE(scheme);
  EXPECT_EQ(scheme.error().what().find("XXXX"), std::string::npos) << scheme.error().what();
}

TEST(ParseUrl, RejectsMissingSchemeCredentialsAndWhitespace) {
  expect_url_error("hooks.example.com/x", "no scheme");
  expect_url_error("https://user:pw@hooks.example.com/x", "credentials");
  expect_url_error("http://hooks.example.com/a b", "whitespace");
}

TEST(RedactUrl, KeepsSchemeHostAndWordsHidesTokens) {
  EXPECT_EQ(redact_url("https://hooks.slack.com/services/T000/B000/XXXX"),
            "https://hooks.slack.com/services/***/***/***");
  EXPECT_EQ(redact_url("https://discord.com/api/v10/webhooks/123456/AbC-dEf"),
            "https://discord.com/api/v10/webhooks/***/***");
  EXPECT_EQ(redact_url("http://u:p@127.0.0.1:8080/hook?token=abc&x=1&bare#frag"),
            "http://***@127.0.0.1:8080/hook?token=***&x=***&***");
  EXPECT_EQ(redact_url("HTTPS://example.com"), "HTTPS://example.com");
  EXPECT_EQ(redact_url("example.com/a-very-long-path-segment-of-words/ok/"), "example.com/***/ok/");
  EXPECT_EQ(redact_url(""), "");
}

TEST(RetryAfterWait, ReadsSecondsAndTheThreeDateForms) {
  using namespace std::chrono;
  const auto now = sys_days(year(1994) / 11 / 6) + hours(8) + minutes(49);  // 37 s before each date
  EXPECT_EQ(retry_after_wait(" 120 ", now), milliseconds(120000));
  EXPECT_EQ(retry_after_wait("Sun, 06 Nov 1994 08:49:37 GMT", now), milliseconds(37000));
  EXPECT_EQ(retry_after_wait("Sunday, 06-Nov-94 08:49:37 GMT", now), milliseconds(37000));
  EXPECT_EQ(retry_after_wait("Sun Nov  6 08:49:37 1994", now), milliseconds(37000));
  EXPECT_EQ(retry_after_wait("Sat, 05 Nov 1994 08:49:37 GMT", now),
            milliseconds(0));  // passed: now
  for (const char* junk :
       {"", "soon", "-5", "1.5", "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37"})
    EXPECT_EQ(retry_after_wait(junk, now), std::nullopt) << junk;
}

TEST(DeliveryBound, CountsEveryPhaseAndEveryWaitAtItsCap) {
  WebhookOptions o;  // 4 attempts of 3 x 5 s, 3 waits of up to 60 s
  EXPECT_EQ(delivery_bound(o), milliseconds(4 * 3 * 5000 + 3 * 60000));
}

TEST(ParseUrl, DefaultsPortAndPath) {
  auto http = parse_url("http://hooks.example.com");
  ASSERT_TRUE(http) << http.error().what();
  EXPECT_EQ(http->scheme, "http");
  EXPECT_EQ(http->host, "hooks.example.com");
  EXPECT_EQ(http->port, 80);
  EXPECT_EQ(http->path, "/");

  auto https = parse_url("HTTPS://hooks.example.com?x=1#frag");
  ASSERT_TRUE(https) << https.error().what();
  EXPECT_EQ(https->scheme, "https");
  EXPECT_EQ(https->port, 443);
  EXPECT_EQ(https->path, "/?x=1");
}

TEST(ParseUrl, KeepsExplicitPortPathAndQuery) {
  auto u = parse_url("http://127.0.0.1:8080/services/T0/B1?token=a+b");
  ASSERT_TRUE(u) << u.error().what();
  EXPECT_EQ(u->host, "127.0.0.1");
  EXPECT_EQ(u->port, 8080);
  EXPECT_EQ(u->path, "/services/T0/B1?token=a+b");
}

TEST(ParseUrl, AcceptsBracketedIpv6) {
  auto u = parse_url("https://[2001:db8::1]:8443/hook");
  ASSERT_TRUE(u) << u.error().what();
  EXPECT_EQ(u->host, "2001:db8::1");
  EXPECT_EQ(u->port, 8443);
  EXPECT_EQ(u->path, "/hook");
  expect_url_error("http://[::1/hook", "closing ']'");
}

}  // namespace
}  // namespace aicost::notify
