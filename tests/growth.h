// SPDX-License-Identifier: MIT
// Growth checks for the linear-time tests: how the cost of n compares with the cost of 4n.
#pragma once

#include <algorithm>
#include <cstddef>
#include <ctime>

namespace cce::test {

/// Linear work grows about 4x from n to 4n and a quadratic rescan 16x. A test asserts the ratio
/// stays below this, never an absolute time: sanitizers, -O0 and a loaded CI machine slow both
/// sizes alike, so only the growth is a property of the code (absolute figures belong in `cce
/// bench`).
constexpr double kLinearGrowthLimit = 10;

/// cpu(run(4n)) / cpu(run(n)), each the best of `runs` calls, the two sizes interleaved so a
/// busy spell hits both. The process's CPU time, not the wall clock: time the scheduler gives to
/// other processes (ctest -j, other builds) is not counted. A ratio over the limit is measured
/// again (up to three times, keeping the smallest): cache contention can inflate one
/// measurement, but no repetition makes quadratic work look linear.
template <class Run>
double growthRatio(Run&& run, std::size_t n, int runs = 3) {
  auto timeOf = [&run](std::size_t size) {
    const std::clock_t start = std::clock();
    run(size);
    return static_cast<double>(std::clock() - start);
  };
  double smallest = 1e300;
  for (int attempt = 0; attempt < 3 && smallest >= kLinearGrowthLimit; ++attempt) {
    double small = 1e300, large = 1e300;
    for (int r = 0; r < runs; ++r) {
      small = std::min(small, timeOf(n));
      large = std::min(large, timeOf(4 * n));
    }
    smallest = std::min(smallest, large / std::max(small, 1.0));
  }
  return smallest;
}

}  // namespace cce::test
