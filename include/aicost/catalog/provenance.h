#pragma once

#include <string>

namespace aicost::catalog {

// Where a catalog figure comes from. Every shipped entry has a source and a date.
struct Provenance {
  std::string source;
  std::string date;     // ISO date where known ("2026-01-21", "2026-02", "unknown")
  std::string version;  // the source's own version label, when it has one
  std::string note;
};

}  // namespace aicost::catalog
