// Private to the Python modules (module.cc, ledger_module.cc): how a call runs and what it renders.
#pragma once

#include <pybind11/pybind11.h>

#include <optional>
#include <utility>

#include "aicost/api/api.h"
#include "aicost/core/result.h"

namespace aicost::python {

// Runs `call` without the GIL; returns its result.
template <class F>
core::Result<api::Output> unlocked(F&& call) {
  std::optional<core::Result<api::Output>> out;
  {
    pybind11::gil_scoped_release release;
    out.emplace(call());
  }
  return std::move(*out);
}

inline report::Format json_format() { return report::Format::kJson; }
// The format of a call: its JSON, or (`html`, for a notebook's display) the `-o html` page whose
// table and chart specs the Python layer takes out.
inline report::Format format_of(bool html) {
  return html ? report::Format::kHtml : report::Format::kJson;
}

}  // namespace aicost::python
