// SPDX-License-Identifier: MIT
// StringIndex: the open-addressing table, its switch to full hashing, and its tree of last resort.
#include "string_index.h"

#if defined(__SSE2__) && !defined(CCE_NO_SIMD)
#include <emmintrin.h>
#define CCE_STRING_INDEX_SSE2 1
#else
#define CCE_STRING_INDEX_SSE2 0
#endif

namespace cce {

namespace {

constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;
constexpr std::uint32_t kMaxFalseMatches = 8;

// Whether two keys are equal. A matching hash is confirmed over every unit, and for the repeated
// contents of exact dedup that is most of the table's time (the scale session compares 0.78 M
// units): the speed build (wasm SIMD through SSE2) and native x86-64 compare eight units a step,
// where libc++'s char_traits loop takes one; the size build keeps the loop.
bool sameKey(std::u16string_view a, std::u16string_view b) {
  if (a.size() != b.size()) return false;
#if CCE_STRING_INDEX_SSE2
  const std::size_t n = a.size();
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a.data() + i));
    const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.data() + i));
    if (_mm_movemask_epi8(_mm_cmpeq_epi16(x, y)) != 0xFFFF) return false;
  }
  for (; i < n; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
#else
  return a == b;
#endif
}

}  // namespace

std::uint32_t StringIndex::intern(std::u16string_view key) {
  if (mode_ == Mode::Ordered) return internOrdered(key);
  if ((static_cast<std::size_t>(size_) + 1) * 4 > slots_.size() * 3) {
    rebuild(slots_.empty() ? 16 : slots_.size() * 2, false);
  }
  const std::uint32_t hash = mode_ == Mode::Full ? hashes_.full(key) : hashes_.sampled(key);
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t at = hash & mask;; at = (at + 1) & mask) {
    Slot& slot = slots_[at];
    if (slot.index == kEmpty) {
      slot = Slot{hash, size_};
      return size_++;
    }
    if (slot.hash != hash) continue;
    if (sameKey(keyAt_(slot.index), key)) return slot.index;
    // Different keys with equal hashes: a few by chance (11 in the scale session's 2,255
    // contents), but keys made to agree on the sampled units would all land here, and each
    // insertion would compare against every key before it (quadratic: seconds for a few MB of
    // crafted messages). Once there are more such comparisons than keys, the index hashes every
    // unit instead, which bounds the wasted comparisons to about one per key. FNV-1a is no keyed
    // hash, so keys can be made to collide on every unit too (multicollisions are hours of
    // offline work); past the same bound again, a search tree takes over, whose look-ups cost
    // logarithmically many comparisons whatever the keys.
    if (++falseMatches_ > kMaxFalseMatches + size_) {
      falseMatches_ = 0;
      if (mode_ == Mode::Sampled) {
        mode_ = Mode::Full;
        rebuild(slots_.size(), true);
      } else {
        mode_ = Mode::Ordered;
        for (std::uint32_t i = 0; i < size_; ++i) ordered_[std::u16string(keyAt_(i))] = i;
        std::vector<Slot>().swap(slots_);
      }
      return intern(key);
    }
  }
}

std::uint32_t StringIndex::find(std::u16string_view key) const {
  if (mode_ == Mode::Ordered) {
    auto it = ordered_.find(std::u16string(key));
    return it == ordered_.end() ? kAbsent : static_cast<std::uint32_t>(it->second);
  }
  if (slots_.empty()) return kAbsent;
  // Look-ups follow the probes of intern, which keeps the table short of full and has already
  // left the sampled hash if keys were made to collide on it.
  const std::uint32_t hash = mode_ == Mode::Full ? hashes_.full(key) : hashes_.sampled(key);
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t at = hash & mask;; at = (at + 1) & mask) {
    const Slot& slot = slots_[at];
    if (slot.index == kEmpty) return kAbsent;
    if (slot.hash == hash && sameKey(keyAt_(slot.index), key)) return slot.index;
  }
}

// Re-places every key in a table of `capacity` slots, hashing every unit of each when `rehash`
// (the switch to Mode::Full).
void StringIndex::rebuild(std::size_t capacity, bool rehash) {
  std::vector<Slot> old;
  old.swap(slots_);
  slots_.assign(capacity, Slot{0, kEmpty});
  const std::size_t mask = capacity - 1;
  for (Slot slot : old) {
    if (slot.index == kEmpty) continue;
    if (rehash) slot.hash = hashes_.full(keyAt_(slot.index));
    std::size_t at = slot.hash & mask;
    while (slots_[at].index != kEmpty) at = (at + 1) & mask;
    slots_[at] = slot;
  }
}

// The tree holds copies: the caller's keys may move (keyAt recomputes views into buffers that
// grow). Its operations are the ones uncompress already instantiates for this map type.
std::uint32_t StringIndex::internOrdered(std::u16string_view key) {
  const std::u16string copy(key);
  auto it = ordered_.find(copy);
  if (it != ordered_.end()) return static_cast<std::uint32_t>(it->second);
  ordered_[copy] = size_;
  return size_++;
}

}  // namespace cce
