#include "aicost/notify/webhook.h"

#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <thread>

namespace aicost::notify {
namespace {

using std::chrono::milliseconds;

core::Error url_error(std::string_view url, std::string message) {
  return core::make_error(core::ErrorCode::kInvalidInput, std::move(message),
                          "webhook URL \"" + std::string(url) + "\"");
}

core::Error option_error(std::string message) {
  return core::make_error(core::ErrorCode::kInvalidInput, std::move(message), "webhook options");
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool is_host_char(unsigned char c) { return std::isalnum(c) || c == '-' || c == '.' || c == '_'; }

// RFC 9110 section 5.6.2: token characters of a header field name.
bool is_token_char(unsigned char c) {
  return std::isalnum(c) || std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) !=
                                std::string_view::npos;
}

// 1..65535 from decimal digits only; nullopt otherwise.
std::optional<int> parse_port(std::string_view text) {
  if (text.empty() || text.size() > 5) return std::nullopt;
  int port = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), port);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (port < 1 || port > 65535) return std::nullopt;
  return port;
}

// Retry-After as delay-seconds (RFC 9110 section 10.2.3), capped; nullopt for an HTTP-date or junk,
// which falls back to the exponential backoff.
std::optional<milliseconds> parse_retry_after(std::string_view value, milliseconds cap) {
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  if (value.empty() || !std::all_of(value.begin(), value.end(),
                                    [](unsigned char c) { return std::isdigit(c) != 0; })) {
    return std::nullopt;
  }
  if (value.size() > 9) return cap;  // over 31 years: certainly past any cap
  std::int64_t seconds = 0;
  std::from_chars(value.data(), value.data() + value.size(), seconds);
  return std::min(milliseconds(seconds * 1000), cap);
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
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](unsigned char c) {
          return is_token_char(c);
        })) {
      return option_error("header name \"" + name +
                          "\" is not a valid HTTP token (letters, digits and !#$%&'*+-.^_`|~)");
    }
    if (value.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos) {
      return option_error("value of header \"" + name + "\" contains CR, LF or NUL");
    }
    if (lower(name) == "content-type") continue;  // the body is JSON, whatever the caller says
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
      // cpp-httplib reports a read timeout and a closed connection alike; the clock tells them apart.
      if (elapsed + milliseconds(10) >= timeout) {
        return "no response from " + where + " within " + limit + " (timed out)";
      }
      return where + " closed the connection before a complete response";
    case httplib::Error::Write:
      return "sending the request to " + where + " failed";
    case httplib::Error::SSLConnection:
      return "TLS handshake with " + where + " failed";
    case httplib::Error::SSLServerVerification:
      return "TLS certificate of " + where + " failed verification";
    case httplib::Error::SSLLoadingCerts:
      return "could not load the CA certificates to verify " + where;
    default:
      return "request to " + where + " failed (" + httplib::to_string(err) + ")";
  }
}

std::unique_ptr<httplib::ClientImpl> make_client(const Url& u, milliseconds timeout) {
  // ClientImpl/SSLClient rather than Client("scheme://host:port"): Client's URL pattern only accepts
  // IPv6 literals made of digits and colons.
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
      a.retry_after = parse_retry_after(res->get_header_value("Retry-After"), opts.max_backoff);
    }
  } catch (const std::exception& e) {  // cpp-httplib is not documented as nothrow; never crash
    a.status = 0;
    a.error = "request to " + authority(u) + " failed: " + e.what();
    a.retryable = true;
  }
  return a;
}

}  // namespace

core::Result<Url> parse_url(std::string_view url) {
  if (url.empty()) {
    return core::make_error(core::ErrorCode::kInvalidInput,
                            "webhook URL is empty; give an http:// or https:// URL");
  }
  for (unsigned char c : url) {
    if (c <= 0x20 || c == 0x7f) {
      return url_error(url, "contains whitespace or a control character; percent-encode it");
    }
  }
  const auto sep = url.find("://");
  if (sep == std::string_view::npos) {
    return url_error(url, "has no scheme; it must start with http:// or https://");
  }
  Url out;
  out.scheme = lower(url.substr(0, sep));
  if (out.scheme != "http" && out.scheme != "https") {
    return url_error(url, "unsupported scheme \"" + std::string(url.substr(0, sep)) +
                              "\"; use http:// or https://");
  }
  std::string_view rest = url.substr(sep + 3);
  const auto auth_end = rest.find_first_of("/?#");
  std::string_view auth = rest.substr(0, auth_end);
  std::string_view tail = auth_end == std::string_view::npos ? "" : rest.substr(auth_end);

  if (auth.find('@') != std::string_view::npos) {
    return url_error(url,
                     "credentials in the URL (user:password@) are not supported; pass them as an "
                     "Authorization header in WebhookOptions::headers");
  }
  std::string_view port_text;
  bool has_port = false;
  if (!auth.empty() && auth.front() == '[') {
    const auto close = auth.find(']');
    if (close == std::string_view::npos) {
      return url_error(url, "IPv6 address has no closing ']'");
    }
    std::string_view host = auth.substr(1, close - 1);
    if (host.empty() || !std::all_of(host.begin(), host.end(), [](unsigned char c) {
          return std::isxdigit(c) || c == ':' || c == '.';
        })) {
      std::string message = "\"";  // stepwise, as for the path below (gcc 12 -Wrestrict)
      message.append(host).append("\" is not an IPv6 address");
      return url_error(url, std::move(message));
    }
    out.host = std::string(host);
    std::string_view after = auth.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') {
        return url_error(url, "unexpected \"" + std::string(after) + "\" after the IPv6 address");
      }
      has_port = true;
      port_text = after.substr(1);
    }
  } else {
    const auto colon = auth.find(':');
    out.host = std::string(auth.substr(0, colon));
    if (colon != std::string_view::npos) {
      has_port = true;
      port_text = auth.substr(colon + 1);
    }
    if (out.host.empty()) return url_error(url, "has no host after the scheme");
    for (unsigned char c : out.host) {
      if (!is_host_char(c)) {
        return url_error(url, "host \"" + out.host + "\" contains '" +
                                  std::string(1, static_cast<char>(c)) + "'");
      }
    }
  }
  if (has_port) {
    auto port = parse_port(port_text);
    if (!port) {
      return url_error(url, "port \"" + std::string(port_text) + "\" is not a number in 1..65535");
    }
    out.port = *port;
  } else {
    out.port = out.scheme == "https" ? 443 : 80;
  }
  tail = tail.substr(0, tail.find('#'));  // a fragment is never sent to the server
  // Appended rather than "/" + std::string(tail): gcc 12 misreports -Wrestrict on that form.
  if (tail.empty() || tail.front() != '/') out.path = "/";
  out.path.append(tail);
  return out;
}

core::Result<Delivery> post_json(std::string_view url, const std::string& json,
                                 const WebhookOptions& opts) {
  auto parsed = parse_url(url);
  if (!parsed) return parsed.error();
  if (opts.attempts < 1) {
    return option_error("attempts is " + std::to_string(opts.attempts) + "; it must be at least 1");
  }
  if (opts.timeout.count() <= 0) return option_error("timeout must be positive");
  if (opts.backoff.count() < 0 || opts.max_backoff.count() < 0) {
    return option_error("backoff and max_backoff must not be negative");
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
