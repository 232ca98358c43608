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
    case Collective::kAllGather:
      return latency + bytes * ((n - 1) / n) / bus_bandwidth(job, g);
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

}  // namespace aicost::perf
