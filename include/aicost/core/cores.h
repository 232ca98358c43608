// How many threads a parallel step should start by default.
#pragma once

namespace aicost::core {

// The cores this process may run on (its CPU affinity, as `taskset` or a container sets it),
// else the machine's hardware threads; at least 1.
unsigned usable_cores();

}  // namespace aicost::core
