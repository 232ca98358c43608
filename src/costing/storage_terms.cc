// What keeping checkpoints costs when their tiers bill minimum durations, when a lifecycle moves
// the older ones to cheaper tiers, and when saves are compressed or incremental; what the dataset's
// and the restarts' reads cost in retrieval fees (docs/OPTIMIZE.md "Storage terms").
#include <algorithm>
#include <cmath>

#include "aicost/core/text.h"
#include "aicost/costing/cost_model.h"
#include "aicost/perf/estimate.h"

namespace aicost::costing {

using core::Bytes;
using core::Seconds;
using core::Usd;

namespace {

struct Stage {
  Seconds from{0};
  core::UsdPerByteSecond price;
  const TierTerms* terms = nullptr;
};

std::vector<Stage> stages(const StorageInputs& s) {
  std::vector<Stage> out{{Seconds(0), s.checkpoint_price, &s.checkpoint_terms}};
  for (const auto* st : {&s.checkpoint_warm, &s.checkpoint_cold}) {
    if (*st) out.push_back({(*st)->after, (*st)->price, &(*st)->terms});
  }
  return out;
}

}  // namespace

bool plain_checkpoint_storage(const StorageInputs& s) {
  return !s.checkpoint_warm && !s.checkpoint_cold && s.checkpoint_terms.min_duration.value() <= 0 &&
         !s.incremental_checkpoint && s.checkpoint_compression.ratio == 1;
}

Usd checkpoint_lifetime_cost(const StorageInputs& s, Bytes bytes, Seconds lifetime) {
  const auto st = stages(s);
  Usd cost(0);
  for (size_t i = 0; i < st.size(); ++i) {
    if (st[i].from >= lifetime) break;
    const Seconds leave = i + 1 < st.size() ? std::min(lifetime, st[i + 1].from) : lifetime;
    // Leaving a tier (moved on or deleted) before its minimum is billed the minimum anyway.
    const Seconds billed = std::max(st[i].terms->min_duration, leave - st[i].from);
    cost += bytes * st[i].price * billed;
  }
  return cost;
}

const TierTerms& latest_checkpoint_terms(const StorageInputs& s, Seconds interval) {
  // The latest checkpoint is younger than one interval: it has moved only if a stage starts
  // before that (then a restart reads it there).
  const TierTerms* t = &s.checkpoint_terms;
  for (const auto& st : stages(s)) {
    if (st.from < interval) t = st.terms;
  }
  return *t;
}

CheckpointStorage checkpoint_storage(const StorageInputs& s, const FailureOverhead& f,
                                     Seconds wall) {
  CheckpointStorage out;
  out.retained =
      std::min<double>(s.checkpoints_retained, std::max(1.0, wall / f.checkpoint_interval));
  const Bytes full = f.checkpoint_size * s.checkpoint_compression.ratio;
  if (plain_checkpoint_storage(s)) {
    out.peak = Bytes(out.retained * f.checkpoint_size.value());
    out.cost = Usd(out.peak.value() * s.checkpoint_price.value() * wall.value());
    out.peak_rate = core::UsdPerSecond(out.peak.value() * s.checkpoint_price.value());
    return out;
  }
  // Each save lives until `retained` newer ones exist; saves x lifetime = retained x wall.
  const Seconds lifetime = f.checkpoint_interval * out.retained;
  const double saves = wall / f.checkpoint_interval;
  const Bytes per_save = s.incremental_checkpoint ? full * s.trainable_share : full;
  out.cost = checkpoint_lifetime_cost(s, per_save, lifetime) * saves;
  out.peak = per_save * out.retained;
  if (s.incremental_checkpoint) {
    // The frozen base, stored once for the run on the tier saves are written to.
    const Bytes base = full * (1 - s.trainable_share);
    out.cost += base * s.checkpoint_price * std::max(wall, s.checkpoint_terms.min_duration);
    out.peak += base;
  }
  out.peak_rate = core::UsdPerSecond(out.cost.value() / std::max(wall.value(), 1.0));
  return out;
}

Usd retrieval_fees(const workload::TrainingJob& job, const StorageInputs& s,
                   const FailureOverhead& f) {
  // What the loader reads (perf::data_reads): each token once per loading pipeline stage (the
  // first and the last) and per context-parallel rank.
  const double tokens_per_step = static_cast<double>(job.global_batch) * job.seq_length;
  const Bytes dataset_read = tokens_per_step > 0
                                 ? perf::data_reads(job).per_step * (job.tokens / tokens_per_step)
                                 : Bytes(0);
  const Bytes per_restart = f.checkpoint_size * s.checkpoint_compression.ratio;
  return dataset_read * s.dataset_terms.retrieval_price +
         per_restart * f.expected_interruptions *
             latest_checkpoint_terms(s, f.checkpoint_interval).retrieval_price;
}

}  // namespace aicost::costing
