// SPDX-License-Identifier: MIT
// The word-sized instance of js::stableSort (sort.h): the same runs and merges as
// detail::stableSortValues, over elements moved as bytes.
#include "jscompat/sort.h"

#include <cstring>
#include <vector>

namespace cce::js::detail {

namespace {

constexpr std::size_t kWord = sizeof(void*);
constexpr std::size_t kRun = 16;

unsigned char* at(unsigned char* base, std::size_t i) { return base + i * kWord; }

}  // namespace

void stableSortWords(void* data, std::size_t n, WordLess less, const void* context) {
  auto* first = static_cast<unsigned char*>(data);
  for (std::size_t lo = 0; lo < n; lo += kRun) {
    const std::size_t hi = std::min(n, lo + kRun);
    for (std::size_t i = lo + 1; i < hi; ++i) {
      unsigned char item[kWord];
      std::memcpy(item, at(first, i), kWord);
      std::size_t j = i;
      for (; j > lo && less(context, item, at(first, j - 1)); --j) {
        std::memcpy(at(first, j), at(first, j - 1), kWord);
      }
      std::memcpy(at(first, j), item, kWord);
    }
  }
  if (n <= kRun) return;
  std::vector<unsigned char> buffer(n * kWord);
  unsigned char* from = first;
  unsigned char* to = buffer.data();
  for (std::size_t width = kRun; width < n; width *= 2) {
    for (std::size_t lo = 0; lo < n; lo += 2 * width) {
      const std::size_t mid = std::min(n, lo + width);
      const std::size_t hi = std::min(n, lo + 2 * width);
      std::size_t i = lo;
      std::size_t j = mid;
      std::size_t k = lo;
      // On a tie the left run's element goes first: that is what keeps the sort stable.
      while (i < mid && j < hi) {
        const bool right = less(context, at(from, j), at(from, i));
        std::memcpy(at(to, k++), right ? at(from, j++) : at(from, i++), kWord);
      }
      std::memcpy(at(to, k), at(from, i), (mid - i) * kWord);
      k += mid - i;
      std::memcpy(at(to, k), at(from, j), (hi - j) * kWord);
    }
    std::swap(from, to);
  }
  if (from != first) std::memcpy(first, from, n * kWord);
}

}  // namespace cce::js::detail
