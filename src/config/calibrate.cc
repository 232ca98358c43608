#include "aicost/config/calibrate.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "aicost/config/cross_validation.h"

namespace aicost::config {

core::Result<CalibrationRun> calibrate_csv(const std::string& path, const catalog::Catalog& cat,
                                           const perf::CalibrationRules& rules) {
  auto loaded = load_observations(path, cat);
  if (!loaded) return loaded.error();
  // A row of the user's own hardware the catalog cannot place is an error, not a skip: the
  // calibration would otherwise silently leave out the runs it was asked to fit.
  std::string unknown;
  int first_line = 0;
  for (size_t i = 0; i < loaded->skipped.size(); ++i) {
    const auto& s = loaded->skipped[i];
    if (s.find(": unknown GPU '") == std::string::npos &&
        s.find(": no efficiency profile for ") == std::string::npos) {
      continue;
    }
    const int line = i < loaded->skipped_lines.size() ? loaded->skipped_lines[i] : 0;
    if (first_line == 0) first_line = line;
    unknown += fmt::format("{}  line {}: {}", unknown.empty() ? "" : "\n", line, s);
  }
  if (!unknown.empty()) {
    // The rows, one per line, are the excerpt; the location is the first of them.
    return core::make_error_at(
        core::ErrorCode::kNotFound,
        "rows name a GPU the catalog cannot place; add the GPU (a 'gpus:' entry "
        "with its generation, and an 'efficiency:' profile for a new generation) "
        "in a file given with --catalog, or correct gpu_type:",
        {path, first_line, 0, unknown});
  }
  auto fitted = perf::calibrate(std::move(loaded->observations), loaded->parameters, rules);
  if (!fitted) return fitted.error().with_context(path);
  return CalibrationRun{path, loaded->serving, std::move(*fitted), std::move(loaded->skipped)};
}

std::string calibration_overlay(const CalibrationRun& run, const std::string& date) {
  const auto& f = run.fit;
  const auto before = perf::summarize(perf::calibration_cases(f, perf::CalibrationStage::kBefore));
  const auto after = perf::summarize(perf::calibration_cases(f, perf::CalibrationStage::kAfter));
  std::string counts;
  for (const auto& g : f.generations) {
    int n = 0;
    for (const auto& o : f.observations) n += o.generation == g ? 1 : 0;
    counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", n, g);
  }
  std::string out = fmt::format(
      "# Efficiency calibrated by `aicost calibrate` to the measured {} runs of {}.\n"
      "# Use it with `aicost --catalog <this file> ...`: each entry replaces the shipped profile "
      "of its\n"
      "# generation, with the keys below and every other key from the base profile.\n"
      "efficiency:\n",
      run.serving ? "serving" : "training", run.path);
  for (const auto& g : f.generations) {
    out += fmt::format("  - generation: {}\n    base: {}\n", g, g);
    for (size_t k = 0; k < f.parameters.size(); ++k) {
      const auto& p = f.parameters[k];
      out += fmt::format("    {}: {}\n", p.key, core::format_in_unit(f.cv.all.value(k, g), p.unit));
    }
    // YAML double-quoted: the path may hold quotes or backslashes.
    std::string source = fmt::format(
        "aicost calibrate on {} ({} measured rows: {}); |error| median {:.1f} % with the shipped "
        "profile, {:.1f} % calibrated (cross-validated, held out by {})",
        run.path, f.observations.size(), counts, before.median_abs * 100, after.median_abs * 100,
        f.holdout);
    std::string quoted;
    for (char c : source) {
      if (c == '"' || c == '\\') quoted += '\\';
      quoted += c;
    }
    out += fmt::format("    source: \"{}\"\n    date: {}\n", quoted, date);
  }
  return out;
}

core::Status write_overlay(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      return core::make_error(core::ErrorCode::kIo,
                              std::string("cannot write the profile: ") + std::strerror(errno) +
                                  "; choose a writable path with --write",
                              path);
    }
    out << text;
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      return core::make_error(core::ErrorCode::kIo, "cannot write the profile (disk full?)", path);
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    return core::make_error(core::ErrorCode::kIo, "cannot write the profile: " + why, path);
  }
  return {};
}

}  // namespace aicost::config
