// Private to the Python module: the api's results as Python values (to_python.cc), for
// module.cc's calls.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>  // Output::warnings as a list; pybind11 wants it in every file

#include <string>

#include "aicost/api/api.h"
#include "aicost/core/result.h"

namespace aicost::python {

// The error as a dict: code (its name), message, context, text (what() says), and with a
// location, file, line and column (None when unknown) and excerpt.
pybind11::dict error_dict(const core::Error& e);

// JSON text as the Python objects json.loads makes of it; throws std::runtime_error when the text
// does not parse.
pybind11::object from_json(const std::string& text);

// (True, value, status, warnings) or (False, error): `value` is the JSON as Python objects, or with
// `parse` false (an -o html page) the text as bytes.
pybind11::tuple to_python(const core::Result<api::Output>& out, bool parse = true);

}  // namespace aicost::python
