#include "aicost/optimize/change.h"

#include <algorithm>

namespace aicost::optimize {

Change merge(const Change& first, const Change& then) {
  Change out = first;
  for (const Edit& e : then) {
    auto it = std::find_if(out.begin(), out.end(), [&](const Edit& o) { return o.key == e.key; });
    if (it == out.end()) {
      out.push_back(e);
    } else {
      it->value = e.value;
    }
  }
  return out;
}

std::string describe(const Change& change) {
  std::string out;
  for (const Edit& e : change) {
    if (!out.empty()) out += "; ";
    out += e.key + ": " + (e.value ? *e.value : "(removed)");
  }
  return out;
}

}  // namespace aicost::optimize
