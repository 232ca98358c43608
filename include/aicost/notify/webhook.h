// Webhook delivery: POST a JSON alert payload to an http(s) URL, with retries, backoff and a
// timeout.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "aicost/core/result.h"

namespace aicost::notify {

// A parsed webhook URL.
struct Url {
  std::string scheme;  // "http" or "https" (lower case)
  std::string host;    // as written, without the brackets of an IPv6 literal ("::1")
  int port = 0;        // 1..65535; 80 for http and 443 for https when the URL names none
  std::string path;  // starts with '/', keeps the query ("/hooks/x?y=1"); "/" when the URL has none
};

// Parses "http://host[:port][/path][?query]" or "https://..." (scheme case-insensitive, IPv6 hosts
// in brackets, a "#fragment" dropped). Error kInvalidInput, context = the URL redacted
// (redact_url), message saying what is wrong: empty, unsupported or missing scheme, missing host,
// user:password@ (credentials go in an Authorization header: for the CLI,
// $AICOST_WEBHOOK_AUTHORIZATION), port not a number in 1..65535, whitespace or control characters.
core::Result<Url> parse_url(std::string_view url);

// The URL with what may be a secret hidden, for messages and logs: scheme, host and port are kept;
// user:password@ becomes ***@; every query value becomes ***; every path segment becomes *** but a
// plain lower-case word ("services", "hooks", "api-v2", up to 24 letters, '-', '_' or '.') or a
// version ("v1"): webhook URLs carry their token in the path (Slack's /services/T.../B.../<secret>)
// or the query. A #fragment is dropped. Works on text that is not a valid URL too.
// "https://hooks.slack.com/services/T000/B000/XXXX" ->
// "https://hooks.slack.com/services/***/***/***".
std::string redact_url(std::string_view url);

// The wait a Retry-After value asks for (RFC 9110 section 10.2.3): delay-seconds, or an HTTP-date
// in any of the three forms (IMF-fixdate "Sun, 06 Nov 1994 08:49:37 GMT", RFC 850, asctime) less
// `now`, 0 when that date has passed. nullopt for anything else.
std::optional<std::chrono::milliseconds> retry_after_wait(
    std::string_view value, std::chrono::system_clock::time_point now);

struct WebhookOptions {
  // Limit on each phase of one attempt: connecting, sending the request, and each wait for response
  // bytes (cpp-httplib semantics). Must be > 0.
  std::chrono::milliseconds timeout{5000};
  // Total tries, >= 1.
  int attempts = 4;
  // Wait before retry k (k = 1, 2, ...): backoff * 2^(k-1), capped at max_backoff. Both >= 0.
  std::chrono::milliseconds backoff{500};
  std::chrono::milliseconds max_backoff{8000};
  // A Retry-After header on a retryable answer (429, 5xx), in seconds or as an HTTP-date, replaces
  // that wait: the next attempt comes exactly when the server asks, if that is at most
  // max_retry_after from now. A server that asks for longer is not tried again (sooner would be
  // refused again): post_json stops and says so, and the caller tries later. >= 0. Default 60 s: a
  // chat webhook's rate limit asks for seconds (Slack about one message per second per hook), and
  // a check run by cron should end in minutes, not hang for as long as a server likes.
  std::chrono::milliseconds max_retry_after{60000};
  // Extra request headers, e.g. {"Authorization", "Bearer ..."}. Names must be HTTP tokens and
  // values free of CR, LF and NUL (error kInvalidInput otherwise). A Content-Type here is ignored:
  // the body is always sent as application/json.
  std::vector<std::pair<std::string, std::string>> headers;
  // How to wait between attempts; empty means std::this_thread::sleep_for. Tests inject a recorder.
  std::function<void(std::chrono::milliseconds)> sleep;
  // The time now, for a Retry-After date; empty means std::chrono::system_clock::now.
  std::function<std::chrono::system_clock::time_point()> now;
};

// The longest post_json can take with `opts`, host name resolution aside: every attempt's three
// phases at the timeout, and every wait between attempts at its cap (max_backoff or
// max_retry_after, whichever is longer).
std::chrono::milliseconds delivery_bound(const WebhookOptions& opts);

// What happened to one post_json call.
struct Delivery {
  int attempts = 0;        // tries made, 1..WebhookOptions::attempts
  int status = 0;          // HTTP status of the last attempt; 0 when it got no response
  std::string error;       // why the last attempt failed ("HTTP 503 Service Unavailable",
                           // "could not connect to host:port ..."); empty when delivered
  bool delivered = false;  // the last attempt got a 2xx answer
};

// POSTs `json` (sent as is, not validated) with Content-Type: application/json to `url`.
//
// Retries on transport errors (connection refused, connect or read timeout, TLS handshake failure),
// on HTTP 5xx and on 429; does not retry other statuses (a 4xx will not fix itself; redirects are
// not followed) nor a failed certificate verification. Certificates and host names of https servers
// are verified against the system CA store.
//
// Returns an Error (kInvalidInput) only when the URL does not parse or the options are invalid
// (attempts < 1, timeout <= 0, negative backoff or max_retry_after, bad header); otherwise the
// Delivery record, with delivered = false when every attempt failed or the server asked to wait
// longer than max_retry_after. Never throws for network failures. No message shows the URL's path,
// query or credentials.
//
// Time bound: delivery_bound(opts): at most attempts x (connect + write + read phases, each <=
// timeout) plus the waits.
// Not bounded by it: host name resolution (getaddrinfo has no timeout) and a server that keeps
// trickling bytes within each read timeout.
//
// Thread safety: reentrant; each call uses its own connection. opts.sleep runs on the caller's
// thread.
core::Result<Delivery> post_json(std::string_view url, const std::string& json,
                                 const WebhookOptions& opts = {});

}  // namespace aicost::notify
