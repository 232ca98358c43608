// The api's results as Python values (module.cc's calls return them): an error as a dict, the
// JSON a call rendered as the objects json.loads makes of it.
#include "to_python.h"

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace aicost::python {

namespace py = pybind11;
using api::Output;
using core::Result;

py::dict error_dict(const aicost::core::Error& e) {
  py::dict d;
  d["code"] = aicost::core::code_name(e.code);
  d["message"] = e.message;
  d["context"] = e.context;
  d["text"] = e.what();
  if (e.location) {
    d["file"] = e.location->file;
    d["line"] =
        e.location->line > 0 ? py::object(py::int_(e.location->line)) : py::object(py::none());
    d["column"] =
        e.location->column > 0 ? py::object(py::int_(e.location->column)) : py::object(py::none());
    d["excerpt"] = e.location->excerpt;
  }
  return d;
}

namespace {

// JSON text as the Python objects json.loads makes of it (dicts in the text's key order, ints,
// floats, str, True/False/None), built as it is read: the package need not import json, about a
// fifth of an import's time (docs/PYTHON.md "Speed"). A number is read as json.loads reads it (the
// nearest double, an integer as int); the renderers write no integer beyond 64 bits.
class ToPython : public nlohmann::json_sax<nlohmann::json> {
 public:
  py::object result;

  bool null() override { return put(py::none()); }
  bool boolean(bool b) override { return put(py::bool_(b)); }
  bool number_integer(number_integer_t n) override { return put(py::int_(n)); }
  bool number_unsigned(number_unsigned_t n) override { return put(py::int_(n)); }
  bool number_float(number_float_t x, const string_t&) override { return put(py::float_(x)); }
  bool string(string_t& text) override { return put(py::str(text)); }
  bool binary(binary_t&) override { return false; }
  bool start_object(std::size_t) override { return open(py::dict()); }
  bool key(string_t& text) override {
    keys_.back() = py::str(text);
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(py::list()); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  std::vector<py::object> open_;  // the dicts and lists being filled, innermost last
  std::vector<py::object> keys_;  // the key of each open dict's next value

  bool put(py::object value) {
    if (open_.empty())
      result = std::move(value);
    else if (PyList_Check(open_.back().ptr()))
      open_.back().cast<py::list>().append(std::move(value));
    else
      PyDict_SetItem(open_.back().ptr(), keys_.back().ptr(), value.ptr());
    return true;
  }
  bool open(py::object container) {
    open_.push_back(std::move(container));
    keys_.emplace_back();
    return true;
  }
  bool close() {
    py::object done = std::move(open_.back());
    open_.pop_back();
    keys_.pop_back();
    return put(std::move(done));
  }
};

}  // namespace

py::object from_json(const std::string& text) {
  ToPython sax;
  if (!nlohmann::json::sax_parse(text, &sax))
    throw std::runtime_error("aicost rendered JSON that does not parse");
  return sax.result;
}

// (True, value, status, warnings) or (False, error): `value` is the JSON as Python objects, or with
// `parse` false (an -o html page) the text as bytes.
py::tuple to_python(const Result<Output>& out, bool parse) {
  if (!out) return py::make_tuple(false, error_dict(out.error()));
  if (out->error_after) return py::make_tuple(false, error_dict(*out->error_after));
  py::object value = parse ? from_json(out->text) : py::object(py::bytes(out->text));
  return py::make_tuple(true, value, out->status, out->warnings);
}

}  // namespace aicost::python
