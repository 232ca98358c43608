#include "aicost/core/cores.h"

#include <algorithm>
#include <thread>

#ifdef __linux__
#include <sched.h>
#endif

namespace aicost::core {

unsigned usable_cores() {
#ifdef __linux__
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    return static_cast<unsigned>(std::max(CPU_COUNT(&set), 1));
#endif
  return std::max(std::thread::hardware_concurrency(), 1u);
}

}  // namespace aicost::core
