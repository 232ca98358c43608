// Seeded pseudo-random numbers: xoshiro256** (Blackman & Vigna 2018) seeded by splitmix64.
// The same seed gives the same sequence on every platform and compiler (std::mt19937 does too,
// but the std distributions do not, so the distributions below are written out).
// Not thread-safe: give each worker its own Rng, e.g. Rng(seed).split(worker_index).
#pragma once

#include <cstdint>

namespace aicost::core {

class Rng {
 public:
  explicit Rng(uint64_t seed);

  uint64_t next_u64();
  // Uniform in [0, 1) with 53 random bits.
  double uniform();
  // Exponential with the given mean (> 0).
  double exponential(double mean);
  // Weibull with shape k > 0 and scale lambda > 0.
  double weibull(double shape, double scale);
  // Standard normal (Box-Muller; one draw per call).
  double normal();
  // An independent stream derived from this generator's seed and `stream`.
  Rng split(uint64_t stream) const;

 private:
  uint64_t seed_;
  uint64_t s_[4];
};

}  // namespace aicost::core
