#include "aicost/report/error_report.h"

#include <nlohmann/json.hpp>

namespace aicost::report {

std::string render_error_json(const core::Error& e) {
  // Programs get the message without the quoted source line, and the position as numbers.
  nlohmann::json err = {
      {"code", core::code_name(e.code)}, {"message", e.message}, {"context", e.context}};
  if (const auto& at = e.location) {
    if (!at->excerpt.empty()) err["excerpt"] = at->excerpt;
    err["file"] = at->file;
    if (at->line > 0) err["line"] = at->line;
    if (at->column > 0) err["column"] = at->column;
  }
  nlohmann::json j = {{"error", err}};
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace aicost::report
