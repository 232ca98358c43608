// Webhook URLs: parsed strictly and redacted for messages (docs/GOVERNANCE.md, webhooks),
// since webhook paths and queries often carry the secret token.
#include "aicost/notify/webhook.h"

#include "aicost/core/text.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

namespace aicost::notify {
namespace {

core::Error url_error(std::string_view url, std::string message) {
  return core::make_error(core::ErrorCode::kInvalidInput, std::move(message),
                          "webhook URL \"" + redact_url(url) + "\"");
}

bool is_host_char(unsigned char c) { return std::isalnum(c) || c == '-' || c == '.' || c == '_'; }

// 1..65535 from decimal digits only; nullopt otherwise.
std::optional<int> parse_port(std::string_view text) {
  if (text.empty() || text.size() > 5) return std::nullopt;
  int port = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), port);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (port < 1 || port > 65535) return std::nullopt;
  return port;
}

// A path segment or query name that reads as a word, not a token: up to 24 lower-case letters,
// '-', '_' or '.', or a version ("v1").
bool plain_word(std::string_view s) {
  if (s.empty() || s.size() > 24) return false;
  if (s.size() <= 4 && s[0] == 'v' && s.size() > 1 &&
      std::all_of(s.begin() + 1, s.end(), [](unsigned char c) { return std::isdigit(c) != 0; }))
    return true;
  return std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return (c >= 'a' && c <= 'z') || c == '-' || c == '_' || c == '.';
  });
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
  out.scheme = core::ascii_lower(url.substr(0, sep));
  if (out.scheme != "http" && out.scheme != "https") {
    return url_error(url, "unsupported scheme \"" + std::string(url.substr(0, sep)) +
                              "\"; use http:// or https://");
  }
  std::string_view rest = url.substr(sep + 3);
  const auto auth_end = rest.find_first_of("/?#");
  std::string_view auth = rest.substr(0, auth_end);
  std::string_view tail = auth_end == std::string_view::npos ? "" : rest.substr(auth_end);

  if (auth.find('@') != std::string_view::npos) {
    return url_error(
        url,
        "credentials in the URL (user:password@) are not supported; put them in the environment "
        "variable AICOST_WEBHOOK_AUTHORIZATION instead, which is sent as the Authorization header "
        "(\"Basic <base64 of user:password>\" or \"Bearer <token>\")");
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

std::string redact_url(std::string_view url) {
  std::string out;
  std::string_view rest = url;
  if (const auto sep = url.find("://"); sep != std::string_view::npos) {
    out.append(url.substr(0, sep + 3));
    rest = url.substr(sep + 3);
  }
  rest = rest.substr(0, rest.find('#'));
  const auto auth_end = rest.find_first_of("/?");
  std::string_view auth = rest.substr(0, auth_end);
  if (const auto at = auth.rfind('@'); at != std::string_view::npos) {
    out += "***@";
    auth = auth.substr(at + 1);
  }
  out.append(auth);
  if (auth_end == std::string_view::npos) return out;
  const std::string_view tail = rest.substr(auth_end);
  const auto query_start = tail.find('?');
  const std::string_view path = tail.substr(0, query_start);
  for (std::size_t i = 0; i < path.size();) {  // path[i] == '/'
    auto next = path.find('/', i + 1);
    if (next == std::string_view::npos) next = path.size();
    const std::string_view segment = path.substr(i + 1, next - i - 1);
    out += '/';
    if (!segment.empty()) out.append(plain_word(segment) ? segment : "***");
    i = next;
  }
  if (query_start == std::string_view::npos) return out;
  std::string_view query = tail.substr(query_start + 1);
  out += '?';
  for (bool first = true; !query.empty() || first; first = false) {
    const auto amp = query.find('&');
    const std::string_view param = query.substr(0, amp);
    if (!first) out += '&';
    const auto eq = param.find('=');
    if (eq != std::string_view::npos && plain_word(param.substr(0, eq))) {
      out.append(param.substr(0, eq)).append("=***");
    } else if (!param.empty()) {
      out += "***";
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return out;
}

}  // namespace aicost::notify
