#include "aicost/core/result.h"

namespace aicost::core {

const char* to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidInput: return "invalid input";
    case ErrorCode::kNotFound: return "not found";
    case ErrorCode::kParse: return "parse error";
    case ErrorCode::kIo: return "I/O error";
    case ErrorCode::kInfeasible: return "infeasible";
    case ErrorCode::kInternal: return "internal error";
    case ErrorCode::kCancelled: return "cancelled";
  }
  return "unknown";
}

const char* code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidInput: return "invalid_input";
    case ErrorCode::kNotFound: return "not_found";
    case ErrorCode::kParse: return "parse_error";
    case ErrorCode::kIo: return "io_error";
    case ErrorCode::kInfeasible: return "infeasible";
    case ErrorCode::kInternal: return "internal_error";
    case ErrorCode::kCancelled: return "cancelled";
  }
  return "unknown";
}

std::string SourceLocation::text() const {
  if (line <= 0) return file;
  return file + ":" + std::to_string(line) + (column > 0 ? ":" + std::to_string(column) : "");
}

std::string Error::what() const {
  std::string out = context.empty() ? message : context + ": " + message;
  if (location && !location->excerpt.empty()) out += "\n" + location->excerpt;
  return out;
}

Error Error::with_context(const std::string& outer) const {
  Error e = *this;
  e.context = context.empty() ? outer : outer + ": " + context;
  return e;
}

}  // namespace aicost::core
