// Must NOT compile: adding a size to a duration is meaningless. With -DAICOST_CONTROL the same
// file adds two sizes and must compile, which proves the failure is the one we mean.
#include "aicost/core/quantity.h"

int main() {
  using namespace aicost::core;
#ifdef AICOST_CONTROL
  auto x = gib(1) + gib(2);
#else
  auto x = gib(1) + seconds(2);
#endif
  return x.value() > 0 ? 0 : 1;
}
