// SPDX-License-Identifier: MIT
// Interns UTF-16 strings as dense indices 0, 1, 2... in order of first appearance: dedup's whole
// contents and normalised lines, the structured-output summary's paths, the default mode's ids,
// the host's token-count keys. An open-addressing table with stored hashes over keys
// the caller keeps: no node per key, no copy of the keys, and far less code than
// std::unordered_map, whose instantiations (and __next_prime) cost the compress module ~1 KB gzip.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "callback.h"

namespace cce {

// Hashes the length and a fixed sample of code units (both ends and evenly spaced positions):
// equal strings always collide, and the table still compares whole strings, so sampling trades a
// rare extra comparison for not touching every code unit of megabytes of content. No output
// depends on where a key lands: indices follow first appearance.
inline std::uint32_t sampledHash(std::u16string_view s) {
  constexpr std::size_t kEnds = 16, kStrided = 32;
  std::uint64_t h = 1469598103934665603ull ^ s.size();
  auto mix = [&h](char16_t c) {
    h ^= static_cast<std::uint64_t>(c);
    h *= 1099511628211ull;
  };
  const std::size_t n = s.size();
  if (n <= 2 * kEnds + kStrided) {
    for (char16_t c : s) mix(c);
  } else {
    for (std::size_t i = 0; i < kEnds; ++i) mix(s[i]);
    for (std::size_t i = 1; i <= kStrided; ++i) mix(s[i * (n - 1) / (kStrided + 1)]);
    for (std::size_t i = n - kEnds; i < n; ++i) mix(s[i]);
  }
  return static_cast<std::uint32_t>(h ^ (h >> 32));
}

// Every unit (FNV-1a over 64 bits, folded): what the index falls back to when keys were made to
// share their sampled units.
inline std::uint32_t fullHash(std::u16string_view s) {
  std::uint64_t h = 1469598103934665603ull ^ s.size();
  for (char16_t c : s) {
    h ^= static_cast<std::uint64_t>(c);
    h *= 1099511628211ull;
  }
  return static_cast<std::uint32_t>(h ^ (h >> 32));
}

/** The hashes StringIndex uses; tests substitute their own to make keys collide. */
struct StringHashes {
  std::uint32_t (*sampled)(std::u16string_view) = sampledHash;
  std::uint32_t (*full)(std::u16string_view) = fullHash;
};

/**
 * `keyAt(i)` gives the key of index i (a u16string_view the caller keeps alive and unchanged).
 * Linear probing in a power-of-two table at most 3/4 full. One class for every caller (the key
 * source is a Callback, not a template parameter): each instantiation of the table cost the
 * compress module 1.1 KB of wasm, and keys are read back only to confirm a matching hash.
 */
class StringIndex {
 public:
  using KeyAt = Callback<std::u16string_view(std::uint32_t)>;
  /** How keys are found: by their sampled hash, by the hash of every unit, or (only for keys
   *  crafted to collide on both) in a search tree of their copies. */
  enum class Mode : std::uint8_t { Sampled, Full, Ordered };

  explicit StringIndex(KeyAt keyAt, StringHashes hashes = {})
      : keyAt_(std::move(keyAt)), hashes_(hashes) {}

  std::uint32_t size() const { return size_; }
  Mode mode() const { return mode_; }

  /**
   * The index of the key equal to `key`; when there is none, `key` gets index size() (which
   * grows by one), and the caller must make keyAt return it before the next call.
   */
  std::uint32_t intern(std::u16string_view key);

  /** The index of the key equal to `key`, or kAbsent; adds nothing. */
  std::uint32_t find(std::u16string_view key) const;
  static constexpr std::uint32_t kAbsent = 0xFFFFFFFFu;

 private:
  struct Slot {
    std::uint32_t hash;
    std::uint32_t index;
  };

  void rebuild(std::size_t capacity, bool rehash);
  std::uint32_t internOrdered(std::u16string_view key);

  KeyAt keyAt_;
  StringHashes hashes_;
  std::vector<Slot> slots_;
  std::map<std::u16string, std::size_t> ordered_;
  std::uint32_t size_ = 0;
  Mode mode_ = Mode::Sampled;
  std::uint32_t falseMatches_ = 0;
};

}  // namespace cce
