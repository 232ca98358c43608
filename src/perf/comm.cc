#include "aicost/perf/comm.h"

#include <algorithm>

namespace aicost::perf {

int local_ranks(const workload::TrainingJob& job, Group g) {
  const int domain = job.cluster.scale_up_domain;
  if (g.stride >= domain) return 1;
  return std::max(1, std::min(g.size, domain / g.stride));
}

namespace {

core::BytesPerSecond scale_up(const workload::TrainingJob& job) {
  return job.cluster.intra_node_bandwidth * job.efficiency.scale_up_bus;
}

core::BytesPerSecond scale_out(const workload::TrainingJob& job) {
  return job.cluster.inter_node_bandwidth * job.efficiency.scale_out_bus;
}

}  // namespace

core::BytesPerSecond bus_bandwidth(const workload::TrainingJob& job, Group g) {
  const int local = local_ranks(job, g);
  if (local >= g.size) return scale_up(job);
  // A ring that leaves the domain crosses it once per channel; the `local` GPUs of the group in
  // a domain drive `local` NICs in parallel, capped by NVLink.
  return std::min(scale_up(job), scale_out(job) * static_cast<double>(local));
}

core::Seconds collective_time(const workload::TrainingJob& job, Collective c, Group g,
                              core::Bytes bytes) {
  const double n = g.size;
  if (n <= 1 && c != Collective::kSendRecv) return core::Seconds(0);
  const core::Seconds latency = job.efficiency.collective_latency;
  switch (c) {
    case Collective::kAllReduce:
      return latency * 2 + bytes * (2 * (n - 1) / n) / bus_bandwidth(job, g);
    case Collective::kReduceScatter:
    case Collective::kAllGather: return latency + bytes * ((n - 1) / n) / bus_bandwidth(job, g);
    case Collective::kAllToAll: {
      // Of the bytes a rank sends, (local-1)/n stay in the domain, (n-local)/n cross the network,
      // which all-to-all uses less well than rings (many small messages).
      const int local = local_ranks(job, g);
      const core::Seconds inside = bytes * ((local - 1) / n) / scale_up(job);
      const core::Seconds outside =
          bytes * ((n - local) / n) / (scale_out(job) * job.efficiency.all_to_all_bus);
      return latency + std::max(inside, outside);
    }
    case Collective::kSendRecv: {
      const bool same_domain = g.stride < job.cluster.scale_up_domain;
      return latency + bytes / (same_domain ? scale_up(job) : scale_out(job));
    }
  }
  return core::Seconds(0);
}

namespace {

// Probability that none of `topk` distinct experts, drawn uniformly from `experts`, falls among
// the `held` experts of one place (hypergeometric: prod over i of (E - held - i) / (E - i)).
double missed(double experts, double held, double topk) {
  double p = 1;
  for (int i = 0; i < static_cast<int>(topk); ++i) {
    if (experts - i <= 0) return 0;
    p *= std::max(0.0, experts - held - i) / (experts - i);
  }
  return p;
}

}  // namespace

DispatchCopies dispatch_copies(const workload::TrainingJob& job, Group ep, double experts,
                               double topk) {
  const double n = ep.size;
  const double local = local_ranks(job, ep);
  DispatchCopies c;
  if (job.parallel.moe_dispatcher == workload::MoeDispatcher::kAllToAll) {
    c.local = topk * (local - 1) / n;
    c.remote = topk * (n - local) / n;
    return c;
  }
  const double domains = n / local;
  c.remote = (domains - 1) * (1 - missed(experts, experts / domains, topk));
  // Each GPU sends to the hit GPUs of its own domain and forwards what arrives from each other
  // domain to the hit GPUs of its own: by symmetry, (local - 1) x P(hit) copies per domain.
  c.local = domains * (local - 1) * (1 - missed(experts, experts / n, topk));
  return c;
}

core::Seconds dispatch_time(const workload::TrainingJob& job, Group ep, double experts, double topk,
                            core::Bytes token_bytes) {
  if (ep.size <= 1) return core::Seconds(0);
  const DispatchCopies c = dispatch_copies(job, ep, experts, topk);
  const bool flex = job.parallel.moe_dispatcher == workload::MoeDispatcher::kFlex;
  const core::BytesPerSecond network =
      flex ? job.cluster.inter_node_bandwidth * job.efficiency.flex_dispatch_bus
           : scale_out(job) * job.efficiency.all_to_all_bus;
  const core::Seconds inside = token_bytes * c.local / scale_up(job);
  const core::Seconds outside = token_bytes * c.remote / network;
  return job.efficiency.collective_latency + std::max(inside, outside);
}

}  // namespace aicost::perf
