// SPDX-License-Identifier: MIT
// Tests for js::stableSort: the order of Array.prototype.sort (stable) for any input, checked
// against std::stable_sort on inputs full of ties.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "jscompat/sort.h"
#include "unit_util.h"

namespace {

// Items are (key, position) packed into one word: the comparator sees the key only, so equal
// keys are ties, and the position shows whether their order survived.
std::uint32_t item(std::uint32_t key, std::uint32_t position) { return key << 20 | position; }
std::uint32_t keyOf(std::uint32_t item) { return item >> 20; }
bool byKey(std::uint32_t a, std::uint32_t b) { return keyOf(a) < keyOf(b); }

std::vector<std::uint32_t> input(std::size_t n, std::uint32_t keys, cce::test::Rng& random) {
  std::vector<std::uint32_t> items(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto key = static_cast<std::uint32_t>(random.next() % keys);
    items[i] = item(key, static_cast<std::uint32_t>(i));
  }
  return items;
}

}  // namespace

TEST_CASE("stableSort orders like std::stable_sort at every size around its runs and merges") {
  cce::test::Rng random{0x9E3779B9u};
  // 16 is the insertion-sorted run; 17, 33, 65... start a merge with a short right run.
  for (std::size_t n = 0; n <= 300; ++n) {
    for (std::uint32_t keys : {1u, 2u, 7u, 1000u}) {
      std::vector<std::uint32_t> items = input(n, keys, random);
      std::vector<std::uint32_t> expected = items;
      std::stable_sort(expected.begin(), expected.end(), byKey);
      cce::js::stableSort(items, byKey);
      REQUIRE_MESSAGE(items == expected, "n = " << n << ", keys = " << keys);
    }
  }
}

TEST_CASE("stableSort on large inputs, sorted, reversed and random") {
  cce::test::Rng random{12345u};
  for (std::size_t n : {1000u, 4097u, 20000u}) {
    std::vector<std::uint32_t> random_items = input(n, 50, random);
    std::vector<std::uint32_t> ascending(n);
    std::vector<std::uint32_t> descending(n);
    for (std::size_t i = 0; i < n; ++i) {
      ascending[i] = item(static_cast<std::uint32_t>(i / 3), static_cast<std::uint32_t>(i));
      descending[i] = item(static_cast<std::uint32_t>((n - i) / 3), static_cast<std::uint32_t>(i));
    }
    for (std::vector<std::uint32_t>* items : {&random_items, &ascending, &descending}) {
      std::vector<std::uint32_t> expected = *items;
      std::stable_sort(expected.begin(), expected.end(), byKey);
      cce::js::stableSort(*items, byKey);
      CHECK(*items == expected);
    }
  }
}

TEST_CASE("stableSort sorts a sub-range and leaves the rest alone") {
  std::vector<int> values = {9, 8, 5, 3, 4, 1, 2, 7, 6};
  cce::js::stableSort(values.data() + 2, values.data() + 7, [](int a, int b) { return a > b; });
  CHECK(values == std::vector<int>{9, 8, 5, 4, 3, 2, 1, 7, 6});
}

TEST_CASE("stableSort with a descending comparator keeps ties in document order") {
  // The summariser's pools: score descending, equal scores in the order the units came.
  std::vector<std::uint32_t> items = {item(3, 0), item(5, 1), item(3, 2), item(5, 3), item(1, 4)};
  cce::js::stableSort(items, [](std::uint32_t a, std::uint32_t b) { return keyOf(a) > keyOf(b); });
  CHECK(items == std::vector<std::uint32_t>{item(5, 1), item(5, 3), item(3, 0), item(3, 2),
                                            item(1, 4)});
}

// Elements of pointer size (indices, pointers: what the engine sorts) go through the one compiled
// word sort; the cases above (32-bit values) take the template where a pointer is 64 bits.
TEST_CASE("stableSort of word-sized values orders like std::stable_sort") {
  cce::test::Rng random{0xC0FFEEu};
  for (std::size_t n : {0u, 1u, 15u, 16u, 17u, 31u, 33u, 64u, 65u, 300u, 4097u}) {
    for (std::uint32_t keys : {1u, 3u, 1000u}) {
      std::vector<std::size_t> items(n);
      for (std::size_t i = 0; i < n; ++i) items[i] = (random.next() % keys) << 20 | i;
      std::vector<std::size_t> expected = items;
      auto byHighBits = [](std::size_t a, std::size_t b) { return a >> 20 < b >> 20; };
      std::stable_sort(expected.begin(), expected.end(), byHighBits);
      cce::js::stableSort(items, byHighBits);
      REQUIRE_MESSAGE(items == expected, "n = " << n << ", keys = " << keys);
    }
  }
}

TEST_CASE("stableSort of pointers compares what they point at and keeps ties in order") {
  const std::vector<int> scores = {4, 9, 4, 1, 9, 7, 4, 0, 9, 1, 2, 3, 5, 6, 8, 4, 9, 2, 7, 1};
  std::vector<const int*> pool;
  for (const int& s : scores) pool.push_back(&s);
  cce::js::stableSort(pool, [](const int* a, const int* b) { return *a > *b; });
  for (std::size_t i = 1; i < pool.size(); ++i) {
    CHECK(*pool[i - 1] >= *pool[i]);
    if (*pool[i - 1] == *pool[i]) CHECK(pool[i - 1] < pool[i]);  // document order among ties
  }
}
