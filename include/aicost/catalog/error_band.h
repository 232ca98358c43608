// The model's measured error per regime: quantiles of the held-out (cross-validated) error of the
// step and serving models, from data/intervals.yaml. That file is generated, never edited:
// `aicost validate --cv --write-intervals` writes it from data/validation/ (docs/VALIDATION.md),
// and the test ErrorBandsFile.ShippedFileIsCurrent fails when it is stale.
//
// Every figure is a time ratio: measured time / predicted time of one run (a rate such as
// tokens/s is turned into a time). 1.10 means the run took 10 % longer than the model said.
#pragma once

#include <string>
#include <vector>

namespace aicost::catalog {

// One regime, e.g. "hopper/bf16/dense", or a coarser pool of them: "hopper/bf16", "hopper",
// "all". A regime is a path of dimensions (GPU generation / precision / dense|moe, and further
// ones such as a software era when the validation rows have them); a pool holds every row whose
// regime starts with it.
struct ErrorBand {
  std::string regime;
  int rows = 0;
  int groups = 0;  // source groups among the rows (a paper, a benchmark document)
  double p10 = 1, median = 1, p90 = 1;  // time ratios, linear-interpolated quantiles (type 7)
  double min = 1, max = 1;              // the extreme rows
};

struct ErrorBands {
  std::string source;            // the validation file the residuals come from
  std::vector<ErrorBand> bands;  // sorted by regime
  const ErrorBand* find(const std::string& regime) const;
};

// The memory model's measured over-statement: the largest predicted / measured - 1 of peak
// memory per GPU over published measurements (data/validation/memory-dev.csv), written into
// data/intervals.yaml with the bands. A plan whose peak exceeds capacity by no more than this is
// "tight", not refused (perf/memory.h).
struct MemoryMargin {
  std::string source;
  int rows = 0;
  double margin = 0;  // predicted / measured - 1, >= 0
};

}  // namespace aicost::catalog
