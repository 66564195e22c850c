// SPDX-License-Identifier: MIT
// Interns UTF-16 strings as dense indices 0, 1, 2... in order of first appearance, for the dedup
// stage (whole contents, normalised lines). An open-addressing table with stored hashes over keys
// the caller keeps: no node per key, no copy of the keys, and far less code than
// std::unordered_map, whose instantiations (and __next_prime) cost the compress module ~1 KB gzip.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

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

/**
 * `keyAt(i)` gives the key of index i (a u16string_view the caller keeps alive and unchanged).
 * Linear probing in a power-of-two table at most 3/4 full.
 */
template <typename KeyAt>
class StringIndex {
 public:
  explicit StringIndex(KeyAt keyAt) : keyAt_(keyAt) {}

  std::uint32_t size() const { return size_; }
  /** Whether the index has switched from the sampled hash to hashing every unit. */
  bool hashesEveryUnit() const { return fullHash_; }

  /**
   * The index of the key equal to `key`; when there is none, `key` gets index size() (which
   * grows by one), and the caller must make keyAt return it before the next call.
   */
  std::uint32_t intern(std::u16string_view key) {
    if ((static_cast<std::size_t>(size_) + 1) * 4 > slots_.size() * 3) {
      rebuild(slots_.empty() ? 16 : slots_.size() * 2);
    }
    const std::uint32_t hash = fullHash_ ? fullHash(key) : sampledHash(key);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t at = hash & mask;; at = (at + 1) & mask) {
      Slot& slot = slots_[at];
      if (slot.index == kEmpty) {
        slot = Slot{hash, size_};
        return size_++;
      }
      if (slot.hash != hash) continue;
      if (keyAt_(slot.index) == key) return slot.index;
      // Different keys with equal hashes: a few by chance (11 in the scale session's 2,255
      // contents), but keys made to agree on the sampled units would all land here, and each
      // insertion would compare against every key before it (quadratic: seconds for a few MB of
      // crafted messages). Once there are more such comparisons than keys, the index hashes
      // every unit instead, which bounds the wasted comparisons to about one per key.
      if (!fullHash_ && ++falseMatches_ > kMaxFalseMatches + size_) {
        fullHash_ = true;
        rebuild(slots_.size());
        return intern(key);
      }
    }
  }

 private:
  struct Slot {
    std::uint32_t hash;
    std::uint32_t index;
  };
  static constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;
  static constexpr std::uint32_t kMaxFalseMatches = 8;

  /** Re-places every key in a table of `capacity` slots (hashing them again after a switch). */
  void rebuild(std::size_t capacity) {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(capacity, Slot{0, kEmpty});
    const std::size_t mask = capacity - 1;
    for (Slot slot : old) {
      if (slot.index == kEmpty) continue;
      if (fullHash_) slot.hash = fullHash(keyAt_(slot.index));
      std::size_t at = slot.hash & mask;
      while (slots_[at].index != kEmpty) at = (at + 1) & mask;
      slots_[at] = slot;
    }
  }

  KeyAt keyAt_;
  std::vector<Slot> slots_;
  std::uint32_t size_ = 0;
  bool fullHash_ = false;
  std::uint32_t falseMatches_ = 0;
};

}  // namespace cce
