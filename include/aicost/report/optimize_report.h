// `aicost optimize` as text: levers ranked by saving, why the others do not apply, and the
// combined plan (table/markdown for people; JSON and CSV stable, docs/JSON_OUTPUT.md).
#pragma once

#include <string>

#include "aicost/optimize/optimize.h"
#include "aicost/report/format.h"

namespace aicost::report {

std::string render_optimize(const optimize::OptimizeResult& result, Format format);

}  // namespace aicost::report
