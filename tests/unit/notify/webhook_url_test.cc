// The webhook's checks that need no server: post_json's refusals, URL parsing and redaction,
// Retry-After, and the bound on a delivery's time.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <string_view>

#include "aicost/notify/webhook.h"

namespace aicost::notify {
namespace {

using std::chrono::milliseconds;

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
