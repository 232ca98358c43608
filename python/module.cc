// aicost._native: the api module's planning calls for Python (python/aicost/*.py wrap them); the
// ledger's are aicost._native_ledger (ledger_module.cc), a module of their own so that an import
// and an estimate load neither libpq, cpp-httplib, libarchive nor DuckDB (docs/PYTHON.md "Speed").
//
// Each call takes plan text (with its origin and folder) and options, and returns
// (True, json_text, status, warnings) or (False, error_dict): the Python layer parses the JSON the
// shared code rendered and raises the exception an error's code names. The GIL is released while
// the model runs; a search and a simulation (estimate or reliability with `simulate`) run on a
// worker thread while the calling thread polls for signals, so Ctrl-C stops them (the api's
// `cancel` flags) and raises KeyboardInterrupt.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "aicost/api/api.h"
#include "call.h"
#include "to_python.h"

namespace py = pybind11;
using aicost::api::Output;
using aicost::api::PlanSource;
using aicost::core::Result;
using aicost::python::error_dict;
using aicost::python::format_of;
using aicost::python::json_format;
using aicost::python::to_python;
using aicost::python::unlocked;

namespace {

PlanSource source(const std::string& text, const std::string& origin, const std::string& base_dir) {
  return PlanSource{text, origin, base_dir};
}

// The builtin catalog with $AICOST_CATALOG and `files`, kept for the next call with the same
// files and $AICOST_CATALOG (reading the shipped YAML is most of a small estimate's time). The
// files are read again when their names change, not when their contents do.
Result<std::shared_ptr<const aicost::catalog::Catalog>> catalog_for(
    const std::vector<std::string>& files) {
  static std::mutex lock;
  static std::string cached_key;
  static std::shared_ptr<const aicost::catalog::Catalog> cached;
  const char* env = std::getenv("AICOST_CATALOG");
  std::string key = env ? env : "";
  for (const auto& f : files) key += '\n' + f;
  std::lock_guard<std::mutex> hold(lock);
  if (cached && key == cached_key) return cached;
  auto cat = aicost::api::load_catalog(files);
  if (!cat) return cat.error();
  cached = std::make_shared<const aicost::catalog::Catalog>(std::move(*cat));
  cached_key = key;
  return cached;
}

// Runs `call(cancel)` on a worker thread, checking for signals on this one every 50 ms (and
// calling `tick`, with the GIL); a signal (KeyboardInterrupt) or an exception from `tick` sets
// `cancel`, waits for the worker and raises.
template <class F, class Tick>
Result<Output> interruptible(F&& call, Tick&& tick) {
  std::atomic<bool> cancel{false};
  std::packaged_task<Result<Output>()> task([&] { return call(&cancel); });
  auto done = task.get_future();
  std::thread worker(std::move(task));
  for (;;) {
    std::future_status s;
    {
      py::gil_scoped_release release;
      s = done.wait_for(std::chrono::milliseconds(50));
    }
    if (s == std::future_status::ready) break;
    auto stop = [&] {
      cancel = true;
      py::gil_scoped_release release;
      worker.join();
    };
    try {
      tick();
    } catch (...) {  // the progress callback raised: stop the worker before the exception leaves
      stop();
      throw;
    }
    if (PyErr_CheckSignals() != 0) {
      stop();
      throw py::error_already_set();
    }
  }
  worker.join();
  return done.get();
}

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "aicost's commands as library calls (use the aicost package)";

  m.def("plan_file", [](const std::string& path) {
    auto src = aicost::api::plan_file(path);
    if (!src) return py::make_tuple(false, error_dict(src.error()));
    return py::make_tuple(true, py::bytes(src->text), src->origin, src->base_dir);
  });

  m.def("estimate", [](const std::string& text, const std::string& origin,
                       const std::string& base_dir, const std::vector<std::string>& catalogs,
                       bool allow_oom, int simulate, uint64_t seed, bool conservative, bool html) {
    auto cat = catalog_for(catalogs);
    if (!cat) return py::make_tuple(false, error_dict(cat.error()));
    aicost::api::EstimateOptions o;
    o.allow_oom = allow_oom;
    o.simulate = simulate;
    o.seed = seed;
    o.conservative = conservative;
    auto run = [&](const std::atomic<bool>* cancel) {
      o.cancel = cancel;
      return aicost::api::estimate(source(text, origin, base_dir), **cat, format_of(html), o);
    };
    // A simulation may run long: on a worker, so that Ctrl-C stops it; else on this thread.
    return to_python(
        simulate > 0 ? interruptible(run, [] {}) : unlocked([&] { return run(nullptr); }), !html);
  });

  m.def("diff", [](const std::string& a, const std::string& a_origin, const std::string& a_dir,
                   const std::string& b, const std::string& b_origin, const std::string& b_dir,
                   const std::vector<std::string>& catalogs, bool html) {
    auto cat = catalog_for(catalogs);
    if (!cat) return py::make_tuple(false, error_dict(cat.error()));
    return to_python(unlocked([&] {
                       return aicost::api::diff(source(a, a_origin, a_dir),
                                                source(b, b_origin, b_dir), **cat, format_of(html));
                     }),
                     !html);
  });

  m.def("search", [](const std::string& text, const std::string& origin,
                     const std::string& base_dir, const std::vector<std::string>& catalogs, int top,
                     const std::string& objective, int threads, py::object progress, bool html) {
    auto cat = catalog_for(catalogs);
    if (!cat) return py::make_tuple(false, error_dict(cat.error()));
    aicost::api::SearchOptions o;
    o.top = top;
    if (objective == "cheapest") o.objective = aicost::search::Objective::kCheapest;
    if (objective == "fastest") o.objective = aicost::search::Objective::kFastest;
    if (objective == "best-mfu") o.objective = aicost::search::Objective::kBestMfu;
    o.threads = threads;
    // The counter lives in the search while it runs; the calling thread reads it under `lock`
    // and hands the share done to `progress` (a Python callable).
    std::mutex lock;
    const std::atomic<uint64_t>* done = nullptr;
    uint64_t total = 0;
    if (!progress.is_none()) {
      o.progress = [&](const char*, const std::atomic<uint64_t>& d,
                       uint64_t t) -> std::shared_ptr<void> {
        std::lock_guard<std::mutex> hold(lock);
        total = t;
        done = &d;
        return std::shared_ptr<void>(&lock, [&](void*) {
          std::lock_guard<std::mutex> hold(lock);
          done = nullptr;
        });
      };
    }
    auto tick = [&] {
      if (progress.is_none()) return;
      double share = -1;
      {
        std::lock_guard<std::mutex> hold(lock);
        if (done && total > 0) share = static_cast<double>(done->load()) / total;
      }
      if (share >= 0) progress(share);
    };
    auto out = interruptible(
        [&](const std::atomic<bool>* cancel) {
          o.cancel = cancel;
          return aicost::api::search(source(text, origin, base_dir), **cat, format_of(html), o);
        },
        tick);
    if (!progress.is_none()) progress(1.0);
    return to_python(out, !html);
  });

  m.def("reliability", [](const std::string& text, const std::string& origin,
                          const std::string& base_dir, const std::vector<std::string>& catalogs,
                          int simulate, uint64_t seed, int threads, bool spares, bool html) {
    auto cat = catalog_for(catalogs);
    if (!cat) return py::make_tuple(false, error_dict(cat.error()));
    aicost::api::ReliabilityOptions o;
    o.simulate = simulate;
    o.seed = seed;
    o.threads = threads;
    o.spares = spares;
    auto run = [&](const std::atomic<bool>* cancel) {
      o.cancel = cancel;
      return aicost::api::reliability(source(text, origin, base_dir), **cat, format_of(html), o);
    };
    return to_python(
        simulate > 0 ? interruptible(run, [] {}) : unlocked([&] { return run(nullptr); }), !html);
  });

  m.def("optimize",
        [](const std::string& text, const std::string& origin, const std::string& base_dir,
           const std::vector<std::string>& catalogs, std::optional<std::string> guardrails,
           const std::string& guardrails_origin, int threads, bool html) {
          auto cat = catalog_for(catalogs);
          if (!cat) return py::make_tuple(false, error_dict(cat.error()));
          aicost::api::OptimizeOptions o;
          if (guardrails) o.guardrails = PlanSource{*guardrails, guardrails_origin, "."};
          o.threads = threads;
          return to_python(unlocked([&] {
                             return aicost::api::optimize(source(text, origin, base_dir), **cat,
                                                          format_of(html), o);
                           }),
                           !html);
        });

  m.def("catalog", [](const std::string& what, const std::vector<std::string>& catalogs) {
    auto cat = catalog_for(catalogs);
    if (!cat) return py::make_tuple(false, error_dict(cat.error()));
    return to_python(aicost::api::catalog_listing(what, **cat, json_format()));
  });

  m.def("validate", [](const std::string& csv, bool cv, const std::vector<std::string>& catalogs,
                       bool html) {
    auto cat = catalog_for(catalogs);
    if (!cat) return py::make_tuple(false, error_dict(cat.error()));
    return to_python(
        unlocked([&] { return aicost::api::validate(csv, cv, **cat, format_of(html)); }), !html);
  });
}
