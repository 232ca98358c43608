#include "aicost/ledger/change.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "aicost/core/suggest.h"

namespace aicost::ledger {
namespace {

using core::ErrorCode;
using core::make_error;

struct GuardrailName {
  const char* name;
  GuardrailKind kind;
};
constexpr GuardrailName kGuardrails[] = {
    {"max_cost_rise", GuardrailKind::kMaxUnitCostRise},
    {"min_gpu_activity", GuardrailKind::kMinGpuActivity},
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// "5%" -> 0.05; "0.4" -> 0.4 (a fraction), the percent sign then optional.
core::Result<double> parse_share(std::string_view text, std::string_view what) {
  const bool percent = !text.empty() && text.back() == '%';
  if (percent) text.remove_suffix(1);
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || v < 0)
    return make_error(ErrorCode::kInvalidInput,
                      "'" + std::string(text) + "' is not a share; write a percentage such as 5%",
                      std::string(what));
  return percent ? v / 100 : v;
}

}  // namespace

std::string guardrail_name(GuardrailKind k) {
  for (const auto& g : kGuardrails)
    if (g.kind == k) return g.name;
  return "?";
}

core::Result<Guardrail> parse_guardrail(std::string_view text) {
  const auto eq = text.find('=');
  std::vector<std::string> names;
  for (const auto& g : kGuardrails) names.emplace_back(g.name);
  if (eq == std::string_view::npos)
    return make_error(
        ErrorCode::kInvalidInput,
        "write a guardrail as NAME=LIMIT, e.g. max_cost_rise=5% or min_gpu_activity=40%",
        std::string(text));
  const auto name = trim(text.substr(0, eq));
  for (const auto& g : kGuardrails) {
    if (name != g.name) continue;
    auto v = parse_share(trim(text.substr(eq + 1)), text);
    if (!v) return v.error();
    if (g.kind == GuardrailKind::kMinGpuActivity && *v > 1)
      return make_error(ErrorCode::kInvalidInput, "a GPU activity is at most 100%",
                        std::string(text));
    return Guardrail{g.kind, *v};
  }
  return make_error(ErrorCode::kNotFound,
                    "unknown guardrail '" + std::string(name) + "'." +
                        core::did_you_mean(name, names) + " Known: max_cost_rise, min_gpu_activity",
                    std::string(text));
}

std::string guardrail_text(const Guardrail& g) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g%%", g.limit * 100);
  return guardrail_name(g.kind) + "=" + buf;
}

core::Result<Filter> parse_scope(std::string_view text) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos)
    return make_error(ErrorCode::kInvalidInput,
                      "write a scope as DIMENSION=VALUE, e.g. tag:run=r3 or service=Amazon EC2",
                      std::string(text));
  auto key = parse_group_key(trim(text.substr(0, eq)));
  if (!key) return key.error().with_context("--scope");
  const auto value = text.substr(eq + 1);
  if (value.find('\n') != std::string_view::npos)
    return make_error(ErrorCode::kInvalidInput, "a scope's value cannot hold a line break",
                      "--scope");
  return Filter{*key, std::string(value)};
}

std::string scope_text(const Filter& f) { return group_key_name(f.key) + "=" + f.value; }

std::string scope_text(const std::vector<Filter>& scope) {
  if (scope.empty()) return "all";
  std::string out;
  for (const auto& f : scope) out += (out.empty() ? "" : ", ") + scope_text(f);
  return out;
}

}  // namespace aicost::ledger
