#include "aicost/notify/webhook.h"

#include "aicost/core/text.h"

#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <thread>

namespace aicost::notify {
namespace {

using std::chrono::milliseconds;

core::Error option_error(std::string message) {
  return core::make_error(core::ErrorCode::kInvalidInput, std::move(message), "webhook options");
}

// RFC 9110 section 5.6.2: token characters of a header field name.
bool is_token_char(unsigned char c) {
  return std::isalnum(c) ||
         std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

// "Jan".."Dec" -> 1..12; 0 for anything else.
unsigned month_number(const char* name) {
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (unsigned i = 0; i < 12; ++i)
    if (std::string_view(name) == kMonths[i]) return i + 1;
  return 0;
}

// An HTTP-date (RFC 9110 section 5.6.7), any of its three forms, as a point in time; `now` places
// the two-digit year of the RFC 850 form (more than 50 years ahead means the century before).
std::optional<std::chrono::system_clock::time_point> parse_http_date(
    std::string_view value, std::chrono::system_clock::time_point now) {
  using namespace std::chrono;
  const std::string text(value);
  char weekday[16] = {}, mon[4] = {};
  int d = 0, y = 0, hh = 0, mm = 0, ss = 0, used = 0;
  const int size = static_cast<int>(text.size());
  bool two_digit_year = false;
  if (std::sscanf(text.c_str(), "%3[A-Za-z], %2d %3[A-Za-z] %4d %2d:%2d:%2d GMT%n", weekday, &d,
                  mon, &y, &hh, &mm, &ss, &used) == 7 &&
      used == size) {
    // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT"
  } else if (std::sscanf(text.c_str(), "%15[A-Za-z], %2d-%3[A-Za-z]-%2d %2d:%2d:%2d GMT%n", weekday,
                         &d, mon, &y, &hh, &mm, &ss, &used) == 7 &&
             used == size) {
    two_digit_year = true;  // RFC 850: "Sunday, 06-Nov-94 08:49:37 GMT"
  } else if (std::sscanf(text.c_str(), "%3[A-Za-z] %3[A-Za-z] %2d %2d:%2d:%2d %4d%n", weekday, mon,
                         &d, &hh, &mm, &ss, &y, &used) == 7 &&
             used == size) {
    // asctime: "Sun Nov  6 08:49:37 1994"
  } else {
    return std::nullopt;
  }
  if (two_digit_year) {
    const int this_year = static_cast<int>(year_month_day(floor<days>(now)).year());
    y += this_year / 100 * 100;
    if (y > this_year + 50) y -= 100;
  }
  const year_month_day date{year(y), month(month_number(mon)), day(static_cast<unsigned>(d))};
  if (!date.ok() || hh < 0 || hh > 23 || mm < 0 || mm > 59 || ss < 0 || ss > 60)
    return std::nullopt;
  return system_clock::time_point(sys_days(date)) + hours(hh) + minutes(mm) + seconds(ss);
}

std::string duration_text(milliseconds ms) {
  return ms.count() % 1000 == 0 ? std::to_string(ms.count() / 1000) + " s"
                                : std::to_string(ms.count()) + " ms";
}

// backoff * 2^(retry-1), capped at max_backoff; doubling stops at the cap so it cannot overflow.
milliseconds backoff_before_retry(int retry, const WebhookOptions& opts) {
  milliseconds wait = opts.backoff;
  for (int k = 1; k < retry && wait < opts.max_backoff && wait.count() > 0; ++k) wait *= 2;
  return std::min(wait, opts.max_backoff);
}

core::Result<httplib::Headers> request_headers(const WebhookOptions& opts) {
  httplib::Headers headers;
  for (const auto& [name, value] : opts.headers) {
    if (name.empty() ||
        !std::all_of(name.begin(), name.end(), [](unsigned char c) { return is_token_char(c); })) {
      return option_error("header name \"" + name +
                          "\" is not a valid HTTP token (letters, digits and !#$%&'*+-.^_`|~)");
    }
    if (value.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos) {
      return option_error("value of header \"" + name + "\" contains CR, LF or NUL");
    }
    if (core::ascii_lower(name) == "content-type")
      continue;  // the body is JSON, whatever the caller says
    headers.emplace(name, value);
  }
  return headers;
}

std::string authority(const Url& u) {
  const bool v6 = u.host.find(':') != std::string::npos;
  return (v6 ? "[" + u.host + "]" : u.host) + ":" + std::to_string(u.port);
}

// The error text names host:port, never the path: webhook paths often carry the secret token.
std::string transport_error(httplib::Error err, const Url& u, milliseconds timeout,
                            milliseconds elapsed) {
  const std::string where = authority(u);
  const std::string limit = std::to_string(timeout.count()) + " ms";
  switch (err) {
    case httplib::Error::Connection:
      return "could not connect to " + where + " (refused, unreachable or unknown host)";
    case httplib::Error::ConnectionTimeout:
      return "connecting to " + where + " timed out after " + limit;
    case httplib::Error::Read:
      // cpp-httplib reports a read timeout and a closed connection alike; the clock tells them
      // apart.
      if (elapsed + milliseconds(10) >= timeout) {
        return "no response from " + where + " within " + limit + " (timed out)";
      }
      return where + " closed the connection before a complete response";
    case httplib::Error::Write: return "sending the request to " + where + " failed";
    case httplib::Error::SSLConnection: return "TLS handshake with " + where + " failed";
    case httplib::Error::SSLServerVerification:
      return "TLS certificate of " + where + " failed verification";
    case httplib::Error::SSLLoadingCerts:
      return "could not load the CA certificates to verify " + where;
    default: return "request to " + where + " failed (" + httplib::to_string(err) + ")";
  }
}

std::unique_ptr<httplib::ClientImpl> make_client(const Url& u, milliseconds timeout) {
  // ClientImpl/SSLClient rather than Client("scheme://host:port"): Client's URL pattern only
  // accepts IPv6 literals made of digits and colons.
  std::unique_ptr<httplib::ClientImpl> client;
  if (u.scheme == "https") {
    client = std::make_unique<httplib::SSLClient>(u.host, u.port);
  } else {
    client = std::make_unique<httplib::ClientImpl>(u.host, u.port);
  }
  client->enable_server_certificate_verification(true);
  client->set_connection_timeout(timeout);
  client->set_read_timeout(timeout);
  client->set_write_timeout(timeout);
  client->set_keep_alive(false);
  client->set_follow_location(false);
  client->set_url_encode(false);  // the path is sent exactly as the URL spells it
  return client;
}

struct Attempt {
  int status = 0;
  std::string error;
  bool retryable = false;
  std::optional<milliseconds> retry_after;
};

Attempt attempt_once(const Url& u, const httplib::Headers& headers, const std::string& json,
                     const WebhookOptions& opts) {
  Attempt a;
  try {
    auto client = make_client(u, opts.timeout);
    if (!client->is_valid()) {
      a.error = "could not set up a TLS client for " + authority(u);
      return a;  // a broken TLS setup will not fix itself
    }
    const auto start = std::chrono::steady_clock::now();
    httplib::Result res = client->Post(u.path, headers, json, "application/json");
    if (!res) {
      const auto elapsed =
          std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - start);
      a.error = transport_error(res.error(), u, opts.timeout, elapsed);
      // A certificate that fails verification, like a 4xx, will not fix itself within the backoffs.
      a.retryable = res.error() != httplib::Error::SSLServerVerification &&
                    res.error() != httplib::Error::SSLLoadingCerts;
      return a;
    }
    a.status = res->status;
    if (a.status >= 200 && a.status < 300) return a;
    a.error = "HTTP " + std::to_string(a.status) + (res->reason.empty() ? "" : " " + res->reason);
    a.retryable = a.status >= 500 || a.status == 429;
    if (a.retryable && res->has_header("Retry-After")) {
      a.retry_after = retry_after_wait(res->get_header_value("Retry-After"),
                                       opts.now ? opts.now() : std::chrono::system_clock::now());
    }
  } catch (const std::exception& e) {  // cpp-httplib is not documented as nothrow; never crash
    a.status = 0;
    a.error = "request to " + authority(u) + " failed: " + e.what();
    a.retryable = true;
  }
  return a;
}

}  // namespace

std::optional<milliseconds> retry_after_wait(std::string_view value,
                                             std::chrono::system_clock::time_point now) {
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  if (value.empty()) return std::nullopt;
  if (std::all_of(value.begin(), value.end(),
                  [](unsigned char c) { return std::isdigit(c) != 0; })) {
    if (value.size() > 9) return milliseconds(999999999LL * 1000);  // over 31 years: past any cap
    std::int64_t seconds = 0;
    std::from_chars(value.data(), value.data() + value.size(), seconds);
    return milliseconds(seconds * 1000);
  }
  const auto when = parse_http_date(value, now);
  if (!when) return std::nullopt;
  return *when > now ? std::chrono::duration_cast<milliseconds>(*when - now) : milliseconds(0);
}

milliseconds delivery_bound(const WebhookOptions& opts) {
  const auto attempts = std::max(1, opts.attempts);
  return attempts * 3 * opts.timeout +
         (attempts - 1) * std::max(opts.max_backoff, opts.max_retry_after);
}

core::Result<Delivery> post_json(std::string_view url, const std::string& json,
                                 const WebhookOptions& opts) {
  auto parsed = parse_url(url);
  if (!parsed) return parsed.error();
  if (opts.attempts < 1) {
    return option_error("attempts is " + std::to_string(opts.attempts) + "; it must be at least 1");
  }
  if (opts.timeout.count() <= 0) return option_error("timeout must be positive");
  if (opts.backoff.count() < 0 || opts.max_backoff.count() < 0 ||
      opts.max_retry_after.count() < 0) {
    return option_error("backoff, max_backoff and max_retry_after must not be negative");
  }
  auto headers = request_headers(opts);
  if (!headers) return headers.error();

  Delivery d;
  for (int k = 1; k <= opts.attempts; ++k) {
    Attempt a = attempt_once(*parsed, *headers, json, opts);
    d.attempts = k;
    d.status = a.status;
    d.error = std::move(a.error);
    d.delivered = a.status >= 200 && a.status < 300;
    if (d.delivered || !a.retryable || k == opts.attempts) break;
    if (a.retry_after && *a.retry_after > opts.max_retry_after) {
      // Sooner than the server asks would be refused again; later is the caller's next run.
      d.error += "; the server asks to be tried again in " + duration_text(*a.retry_after) +
                 ", more than the " + duration_text(opts.max_retry_after) + " aicost waits";
      break;
    }
    const milliseconds wait = a.retry_after.value_or(backoff_before_retry(k, opts));
    if (opts.sleep) {
      opts.sleep(wait);
    } else {
      std::this_thread::sleep_for(wait);
    }
  }
  return d;
}

}  // namespace aicost::notify
