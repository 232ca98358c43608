// The files a plan names (model.hf_config, serving.traffic_profile.csv): `aicost serve` runs plans
// posted to it and lets no request name a file on the server.
#pragma once

#include <string>

#include "aicost/core/result.h"

namespace aicost::config {

// kInvalidInput at the first key of `text` that names a file to read, with origin:line:col and a
// caret, saying what to write instead; a YAML syntax error as the plan readers give it; else ok.
core::Status forbid_plan_files(const std::string& text, const std::string& origin);

}  // namespace aicost::config
