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
 * The merge sort (insertion-sorted runs of 16, then bottom-up merges through one buffer), compiled
 * once for every element type of pointer size (indices, pointers: all the engine sorts on wasm32):
 * elements move as bytes and compare through `less`, an indirect call instead of a copy of the
 * sort per comparator (0.87 KB gzip of cce.wasm). In sort.cpp.
 */
void stableSortWords(void* first, std::size_t n, WordLess less, const void* context);

/**
 * The sort for elements of any other size (native builds' 32-bit values): their indices, which are
 * pointer-sized, go through the one compiled sort; then the elements move into that order.
 */
template <typename T, typename Less>
void stableSortValues(T* first, T* last, Less less) {
  const std::size_t n = static_cast<std::size_t>(last - first);
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  struct Context {
    const T* first;
    const Less* less;
  } context{first, &less};
  stableSortWords(
      order.data(), n,
      [](const void* c, const void* a, const void* b) {
        std::size_t x;
        std::size_t y;
        std::memcpy(&x, a, sizeof x);
        std::memcpy(&y, b, sizeof y);
        const auto* ctx = static_cast<const Context*>(c);
        return (*ctx->less)(ctx->first[x], ctx->first[y]);
      },
      &context);
  std::vector<T> sorted(n);
  for (std::size_t i = 0; i < n; ++i) sorted[i] = first[order[i]];
  std::copy(sorted.begin(), sorted.end(), first);
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
