// SPDX-License-Identifier: MIT
// StringIndex: the open-addressing table, its switch to full hashing, and its tree of last resort.
#include "string_index.h"

namespace cce {

namespace {

constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;
constexpr std::uint32_t kMaxFalseMatches = 8;

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
    if (keyAt_(slot.index) == key) return slot.index;
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
    if (slot.hash == hash && keyAt_(slot.index) == key) return slot.index;
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
