// LedgerBase's change journal (table `changes`, schema 7; include/aicost/ledger/change.h).
#include <string_view>

#include "aicost/core/text.h"
#include "ledger_base.h"

namespace aicost::store {
namespace {

using core::ErrorCode;
using core::make_error;

template <class T, class F>
std::string lines_of(const std::vector<T>& items, F text) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : "\n") + text(i);
  return out;
}

std::vector<std::string_view> split_lines(std::string_view s) {
  std::vector<std::string_view> out;
  while (!s.empty()) {
    const auto nl = s.find('\n');
    out.push_back(s.substr(0, nl));
    if (nl == std::string_view::npos) break;
    s.remove_prefix(nl + 1);
  }
  return out;
}

}  // namespace

core::Result<std::int64_t> LedgerBase::add_change(const ledger::Change& c) {
  const std::string scope =
      lines_of(c.scope, [](const ledger::Filter& f) { return ledger::scope_text(f); });
  const std::string guardrails = lines_of(c.guardrails, ledger::guardrail_text);
  const std::string added = c.added_at.empty() ? core::utc_now_iso() : c.added_at;
  std::int64_t id = 0;
  auto s = write_alerts([&]() -> core::Status {
    auto r =
        query("recording a change",
              "INSERT INTO changes (day, scope, lever, note, guardrails, added_at) VALUES ($1, $2, "
              "$3, $4, $5, $6) "
              "RETURNING id",
              {std::int64_t{c.day}, std::string_view(scope), std::string_view(c.lever),
               std::string_view(c.note), std::string_view(guardrails), std::string_view(added)});
    if (!r) return r.error();
    if (r->size() != 1)
      return make_error(ErrorCode::kInternal, "recording a change returned no id", ledger_);
    id = r->i64(0, 0);
    return {};
  });
  if (!s) return s.error();
  return id;
}

core::Result<std::vector<ledger::Change>> LedgerBase::changes() {
  auto q = query(
      "reading the change journal",
      "SELECT id, day, scope, lever, note, guardrails, added_at FROM changes ORDER BY day, id");
  if (!q) return q.error();
  std::vector<ledger::Change> out;
  for (std::size_t r = 0; r < q->size(); ++r) {
    ledger::Change c;
    c.id = q->i64(r, 0);
    c.day = static_cast<ledger::Day>(q->i64(r, 1));
    const std::string scope = q->text(r, 2), guardrails = q->text(r, 5);
    for (auto term : split_lines(scope)) {
      auto f = ledger::parse_scope(term);
      if (!f) return f.error().with_context("change " + std::to_string(c.id) + " in " + ledger_);
      c.scope.push_back(std::move(*f));
    }
    c.lever = q->text(r, 3);
    c.note = q->text(r, 4);
    for (auto term : split_lines(guardrails)) {
      auto g = ledger::parse_guardrail(term);
      if (!g) return g.error().with_context("change " + std::to_string(c.id) + " in " + ledger_);
      c.guardrails.push_back(*g);
    }
    c.added_at = q->text(r, 6);
    out.push_back(std::move(c));
  }
  if (!q->ok()) return make_error(ErrorCode::kInternal, "an unexpected value in changes", ledger_);
  return out;
}

}  // namespace aicost::store
