// SPDX-License-Identifier: MIT
// Tests for StringIndex: dense indices in order of first appearance, whole-string equality even
// where the sampled hash collides, and growth that keeps every index.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "string_index.h"

namespace {

/** A StringIndex over keys kept in a vector, as its callers keep theirs; it counts the keys it
 *  reads back (each such read is one whole-string comparison). */
struct Interner {
  explicit Interner(cce::StringHashes hashes = {})
      : index([this](std::uint32_t i) { return keyAt(i); }, hashes) {}
  Interner(const Interner&) = delete;  // the index points back here
  Interner& operator=(const Interner&) = delete;

  std::vector<std::u16string> keys;
  std::size_t comparisons = 0;
  std::uint32_t intern(const std::u16string& key) {
    std::uint32_t id = index.intern(key);
    if (id == keys.size()) keys.push_back(key);
    return id;
  }
  std::u16string_view keyAt(std::uint32_t i) {
    ++comparisons;
    return keys[i];
  }
  cce::StringIndex index;
};
using Mode = cce::StringIndex::Mode;

/** Hashes under which every key collides: what keys crafted against FNV-1a would do. */
std::uint32_t collide(std::u16string_view) { return 42; }
constexpr cce::StringHashes kCollidingHashes{collide, collide};

std::u16string numbered(const char* prefix, int n) {
  std::string s = prefix + std::to_string(n);
  return std::u16string(s.begin(), s.end());
}

}  // namespace

TEST_CASE("StringIndex numbers distinct strings in order of first appearance") {
  Interner interner;
  CHECK(interner.intern(u"beta") == 0);
  CHECK(interner.intern(u"alpha") == 1);
  CHECK(interner.intern(u"beta") == 0);
  CHECK(interner.intern(u"") == 2);
  CHECK(interner.intern(u"") == 2);
  CHECK(interner.intern(u"Beta") == 3);  // case matters: callers normalise first
  CHECK(interner.index.size() == 4);
}

TEST_CASE("StringIndex keeps every index through growth") {
  Interner interner;
  for (int i = 0; i < 5000; ++i) REQUIRE(interner.intern(numbered("line ", i)) == std::uint32_t(i));
  for (int i = 4999; i >= 0; --i) REQUIRE(interner.intern(numbered("line ", i)) == std::uint32_t(i));
  CHECK(interner.index.size() == 5000);
}

TEST_CASE("StringIndex compares whole strings where the sampled hash collides") {
  // Long strings are hashed on their ends and 32 evenly spaced units: these differ only at a
  // unit the sample skips, so they share a hash, and must still be told apart.
  std::u16string base(1000, u'a');
  std::u16string a = base;
  std::u16string b = base;
  a[500] = u'x';
  b[501] = u'y';
  REQUIRE(cce::sampledHash(a) == cce::sampledHash(b));
  REQUIRE(cce::sampledHash(a) == cce::sampledHash(base));
  Interner interner;
  CHECK(interner.intern(a) == 0);
  CHECK(interner.intern(b) == 1);
  CHECK(interner.intern(base) == 2);
  CHECK(interner.intern(b) == 1);
  CHECK(interner.intern(a) == 0);
}

TEST_CASE("StringIndex hashes every unit once keys are made to share the sampled ones") {
  // 3,000 long keys that differ only at units the sampled hash skips: all share one hash. After
  // a few such collisions the index hashes every unit, so it stays linear, and numbers them as
  // before.
  Interner crafted;
  for (int i = 0; i < 3000; ++i) {
    std::u16string key(1000, u'a');
    key[500] = static_cast<char16_t>(u'a' + i % 26);
    key[501] = static_cast<char16_t>(u'a' + i / 26 % 26);
    key[502] = static_cast<char16_t>(u'a' + i / 676);
    REQUIRE(crafted.intern(key) == std::uint32_t(i));
  }
  CHECK(crafted.index.mode() == Mode::Full);
  for (int i = 0; i < 3000; i += 7) REQUIRE(crafted.intern(crafted.keys[i]) == std::uint32_t(i));
  CHECK(crafted.index.size() == 3000);

  // Ordinary keys keep the sampled hash, even with a few chance collisions among them (the scale
  // session has 11): the switch needs more wasted comparisons than there are keys.
  Interner ordinary;
  for (int i = 0; i < 3000; ++i) ordinary.intern(numbered("an ordinary line of text ", i));
  for (int i = 0; i < 12; ++i) {
    std::u16string key(1000, u'b');
    key[500] = static_cast<char16_t>(u'a' + i);
    ordinary.intern(key);
  }
  CHECK(ordinary.index.size() == 3012);
  CHECK(ordinary.index.mode() == Mode::Sampled);
}

TEST_CASE("StringIndex searches a tree once keys collide on every unit's hash too") {
  // Under hashes that always collide, every look-up would compare against every key before it
  // (n^2 / 2: 12.5 M comparisons here). The index gives up on hashing after about one wasted
  // comparison per key in each hashed mode, and then finds keys in a tree.
  Interner crafted(kCollidingHashes);
  constexpr int kKeys = 5000;
  for (int i = 0; i < kKeys; ++i) {
    REQUIRE(crafted.intern(numbered("a key crafted to collide ", i)) == std::uint32_t(i));
  }
  CHECK(crafted.index.mode() == Mode::Ordered);
  for (int i = kKeys - 1; i >= 0; i -= 3) {
    REQUIRE(crafted.intern(numbered("a key crafted to collide ", i)) == std::uint32_t(i));
  }
  CHECK(crafted.intern(u"") == std::uint32_t(kKeys));
  CHECK(crafted.intern(u"") == std::uint32_t(kKeys));
  CHECK(crafted.index.size() == std::uint32_t(kKeys + 1));
  // Reading keys back happens only in the hashed modes and while copying them into the tree.
  CHECK(crafted.comparisons < std::size_t(8 * kKeys));

  // Colliding keys that are still few keep the table: the switches need more wasted
  // comparisons than there are keys.
  Interner few(kCollidingHashes);
  for (int i = 0; i < 4; ++i) few.intern(numbered("k", i));
  CHECK(few.index.mode() == Mode::Sampled);
}

TEST_CASE("StringIndex::find answers without adding, in every mode") {
  Interner sampled;
  CHECK(sampled.index.find(u"absent") == cce::StringIndex::kAbsent);  // an empty table
  sampled.intern(u"alpha");
  sampled.intern(u"beta");
  CHECK(sampled.index.find(u"beta") == 1);
  CHECK(sampled.index.find(u"gamma") == cce::StringIndex::kAbsent);
  CHECK(sampled.index.size() == 2);
  CHECK(sampled.intern(u"gamma") == 2);  // find left no trace of it

  Interner ordered(kCollidingHashes);
  for (int i = 0; i < 200; ++i) ordered.intern(numbered("k", i));
  REQUIRE(ordered.index.mode() == Mode::Ordered);
  CHECK(ordered.index.find(numbered("k", 137)) == 137);
  CHECK(ordered.index.find(u"k200") == cce::StringIndex::kAbsent);
  CHECK(ordered.index.size() == 200);
}

TEST_CASE("StringIndex compares lines with a 10 KB common prefix a bounded number of times each") {
  // Issue 21 item 6: lines that differ only just after a long shared prefix agree on most sampled
  // units. Whole-string comparisons (each reads the 10 KB prefix) must grow with the number of
  // lines, not with its square: the switch to full hashing bounds them.
  auto comparisonsFor = [](int lines) {
    Interner interner;
    const std::u16string prefix(10000, u'x');
    for (int i = 0; i < lines; ++i) {
      // Four digits at units 10000-10003: no sampled unit, so every line shares one sampled hash.
      std::u16string line = prefix + numbered("", 1000 + i) + std::u16string(40, u'z');
      REQUIRE(interner.intern(line) == std::uint32_t(i));
    }
    CHECK(interner.index.mode() == Mode::Full);
    return interner.comparisons;
  };
  const std::size_t small = comparisonsFor(500), large = comparisonsFor(2000);
  CAPTURE(small);
  CAPTURE(large);
  CHECK(large <= 2 * 2000 + 16);
  CHECK(large < 5 * std::max<std::size_t>(small, 1) + 64);
}

TEST_CASE("StringIndex tells keys apart by any one unit, at every position and length") {
  // Under colliding hashes every look-up ends in the whole-key comparison, which the SIMD builds
  // run eight units a step with a unit-by-unit tail: a key that differs from another in one unit
  // anywhere (in a step or in the tail, by a low or a high unit) must get its own index, and an
  // equal key in other storage the first one's.
  const char16_t replacements[] = {u'b', u'\0', u'\x7FFF', u'\x8000', u'\xFFFF', u'\xD800'};
  for (std::size_t length = 1; length <= 40; ++length) {
    const std::u16string base(length, u'a');
    for (std::size_t at = 0; at < length; ++at) {
      for (char16_t unit : replacements) {
        Interner interner(kCollidingHashes);
        std::u16string other = base;
        other[at] = unit;
        REQUIRE(interner.intern(base) == 0);
        CHECK(interner.intern(other) == 1);
        CHECK(interner.intern(std::u16string(base)) == 0);
        CHECK(interner.intern(std::u16string(other)) == 1);
        CHECK(interner.index.mode() == Mode::Sampled);
      }
    }
    // A prefix of another key (lengths differ) is another key.
    Interner interner(kCollidingHashes);
    REQUIRE(interner.intern(base) == 0);
    CHECK(interner.intern(base + u"a") == 1);
    CHECK(interner.intern(base.substr(0, length - 1)) == 2);
  }
}
