// SPDX-License-Identifier: MIT
// Interns UTF-16 strings as dense indices 0, 1, 2... in order of first appearance, for the dedup
// stage (whole contents, normalised lines). An open-addressing table with stored hashes over keys
// the caller keeps: no node per key, no copy of the keys, and far less code than
// std::unordered_map, whose instantiations (and __next_prime) cost the compress module ~1 KB gzip.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
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

/** The hashes StringIndex uses; tests substitute their own to make keys collide. */
struct StringHashes {
  static std::uint32_t sampled(std::u16string_view s) { return sampledHash(s); }
  static std::uint32_t full(std::u16string_view s) { return fullHash(s); }
};

/**
 * `keyAt(i)` gives the key of index i (a u16string_view the caller keeps alive and unchanged).
 * Linear probing in a power-of-two table at most 3/4 full.
 */
template <typename KeyAt, typename Hashes = StringHashes>
class StringIndex {
 public:
  /** How keys are found: by their sampled hash, by the hash of every unit, or (only for keys
   *  crafted to collide on both) in a search tree of their copies. */
  enum class Mode : std::uint8_t { Sampled, Full, Ordered };

  explicit StringIndex(KeyAt keyAt) : keyAt_(keyAt) {}

  std::uint32_t size() const { return size_; }
  Mode mode() const { return mode_; }

  /**
   * The index of the key equal to `key`; when there is none, `key` gets index size() (which
   * grows by one), and the caller must make keyAt return it before the next call.
   */
  std::uint32_t intern(std::u16string_view key) {
    if (mode_ == Mode::Ordered) return internOrdered(key);
    if ((static_cast<std::size_t>(size_) + 1) * 4 > slots_.size() * 3) {
      rebuild(slots_.empty() ? 16 : slots_.size() * 2, false);
    }
    const std::uint32_t hash = mode_ == Mode::Full ? Hashes::full(key) : Hashes::sampled(key);
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
      // every unit instead, which bounds the wasted comparisons to about one per key. FNV-1a is
      // no keyed hash, so keys can be made to collide on every unit too (multicollisions are
      // hours of offline work); past the same bound again, a search tree takes over, whose
      // look-ups cost logarithmically many comparisons whatever the keys.
      if (++falseMatches_ > kMaxFalseMatches + size_) {
        falseMatches_ = 0;
        if (mode_ == Mode::Sampled) {
          mode_ = Mode::Full;
          rebuild(slots_.size(), true);
        } else {
          mode_ = Mode::Ordered;
          for (std::uint32_t i = 0; i < size_; ++i) {
            const std::u16string copy(keyAt_(i));
            ordered_[copy] = i;
          }
          std::vector<Slot>().swap(slots_);
        }
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

  /** Re-places every key in a table of `capacity` slots, hashing every unit of each when
   *  `rehash` (the switch to Mode::Full). */
  void rebuild(std::size_t capacity, bool rehash) {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(capacity, Slot{0, kEmpty});
    const std::size_t mask = capacity - 1;
    for (Slot slot : old) {
      if (slot.index == kEmpty) continue;
      if (rehash) slot.hash = Hashes::full(keyAt_(slot.index));
      std::size_t at = slot.hash & mask;
      while (slots_[at].index != kEmpty) at = (at + 1) & mask;
      slots_[at] = slot;
    }
  }

  // The tree holds copies: the caller's keys may move (keyAt recomputes views into buffers that
  // grow). Its operations are the ones uncompress already instantiates for this map type.
  std::uint32_t internOrdered(std::u16string_view key) {
    const std::u16string copy(key);
    auto it = ordered_.find(copy);
    if (it != ordered_.end()) return static_cast<std::uint32_t>(it->second);
    ordered_[copy] = size_;
    return size_++;
  }

  KeyAt keyAt_;
  std::vector<Slot> slots_;
  std::map<std::u16string, std::size_t> ordered_;
  std::uint32_t size_ = 0;
  Mode mode_ = Mode::Sampled;
  std::uint32_t falseMatches_ = 0;
};

}  // namespace cce
