// An error as the CLI's `-o json` prints it ({"error": {code, message, context, file, line,
// column, excerpt}}), for programs: the CLI on standard error, `aicost serve` as a response body.
#pragma once

#include <string>

#include "aicost/core/result.h"

namespace aicost::report {

std::string render_error_json(const core::Error& e);

}  // namespace aicost::report
