// SPDX-License-Identifier: MIT
// The order of Array.prototype.sort with a comparator: stable (V8 sorts with TimSort), so equal
// elements keep their order. The engine sorts plain values (indices, ids, pointers) with this one
// small merge sort rather than libc++'s std::sort / std::stable_sort, which instantiate five to
// seven functions (1.5-3 KB of wasm) per comparator: replacing them took 2.5 KB gzip off the
// compress module. Sorts of strings and other owning values stay with the standard library.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <vector>

namespace cce::js {

namespace detail {

/** Compares the elements at `a` and `b` (word-sized values, stored as bytes) for `context`. */
using WordLess = bool (*)(const void* context, const void* a, const void* b);

/**
 * The merge sort below, compiled once for every element type of pointer size (indices, pointers:
 * all the engine sorts on wasm32): elements move as bytes and compare through `less`, an indirect
 * call instead of a copy of the sort per comparator (0.87 KB gzip of cce.wasm). In sort.cpp.
 */
void stableSortWords(void* first, std::size_t n, WordLess less, const void* context);

/** The sort for elements of any other size (native builds' 32-bit values). */
template <typename T, typename Less>
void stableSortValues(T* first, T* last, Less less) {
  constexpr std::size_t kRun = 16;
  const std::size_t n = static_cast<std::size_t>(last - first);
  for (std::size_t lo = 0; lo < n; lo += kRun) {
    const std::size_t hi = std::min(n, lo + kRun);
    for (std::size_t i = lo + 1; i < hi; ++i) {
      const T item = first[i];
      std::size_t j = i;
      for (; j > lo && less(item, first[j - 1]); --j) first[j] = first[j - 1];
      first[j] = item;
    }
  }
  if (n <= kRun) return;
  std::vector<T> buffer(n);
  T* from = first;
  T* to = buffer.data();
  for (std::size_t width = kRun; width < n; width *= 2) {
    for (std::size_t lo = 0; lo < n; lo += 2 * width) {
      const std::size_t mid = std::min(n, lo + width);
      const std::size_t hi = std::min(n, lo + 2 * width);
      std::size_t i = lo;
      std::size_t j = mid;
      std::size_t k = lo;
      // On a tie the left run's element goes first: that is what keeps the sort stable.
      while (i < mid && j < hi) to[k++] = less(from[j], from[i]) ? from[j++] : from[i++];
      while (i < mid) to[k++] = from[i++];
      while (j < hi) to[k++] = from[j++];
    }
    std::swap(from, to);
  }
  if (from != first) std::copy(from, from + n, first);
}

}  // namespace detail

/**
 * Sorts [first, last) by `less` (a strict weak order), keeping equal elements in their order:
 * insertion-sorted runs of 16, then bottom-up merges through one buffer. Elements are small
 * trivially copyable values: indices, ids, pointers.
 */
template <typename T, typename Less>
void stableSort(T* first, T* last, Less less) {
  static_assert(std::is_trivially_copyable_v<T>, "stableSort moves plain values");
  if constexpr (sizeof(T) == sizeof(void*)) {
    detail::stableSortWords(
        first, static_cast<std::size_t>(last - first),
        [](const void* context, const void* a, const void* b) {
          T x;
          T y;
          std::memcpy(&x, a, sizeof x);
          std::memcpy(&y, b, sizeof y);
          return (*static_cast<const Less*>(context))(x, y);
        },
        &less);
  } else {
    detail::stableSortValues(first, last, less);
  }
}

template <typename T, typename Less>
void stableSort(std::vector<T>& items, Less less) {
  stableSort(items.data(), items.data() + items.size(), less);
}

}  // namespace cce::js
