// SPDX-License-Identifier: MIT
// Spec §7: entity extraction (proper nouns, identifiers, vowelless words, numbers with units).
#include "entities.h"

#include <algorithm>
#include <array>
#include <set>
#include <string_view>

#include "jscompat/string.h"
#include "match/identifiers.h"

namespace cce {
namespace {

using View = std::u16string_view;

// Sorted (byte order == UTF-16 order for ASCII) so membership is a binary search.
constexpr std::array<std::string_view, 88> kCommonStarters = {
    "About",   "After",   "All",    "Also",    "Although", "An",   "And",    "Any",    "As",
    "At",      "Because", "Before", "Between", "But",      "By",   "Each",   "Even",   "Every",
    "Finally", "First",   "For",    "From",    "Great",    "He",   "Her",    "Here",   "His",
    "How",     "However", "If",     "In",      "Into",     "It",   "Its",    "Just",   "Last",
    "Let",     "Many",    "Most",   "Much",    "My",       "Next", "No",     "Not",    "Note",
    "Now",     "On",      "Once",   "Only",    "Or",       "Our",  "Over",   "Second", "See",
    "She",     "Since",   "So",     "Some",    "Still",    "Sure", "Thanks", "That",   "The",
    "Then",    "There",   "These",  "They",    "Third",    "This", "Those",  "To",     "Under",
    "Unless",  "Until",   "We",     "Well",    "What",     "When", "Where",  "Which",  "While",
    "Who",     "Why",     "With",   "Yes",     "Yet",      "You",  "Your",
};

bool isCommonStarter(View word) {
  // Only ASCII letters reach here ([A-Z][a-z]+), so a narrowing copy compares exactly.
  if (word.size() > 16) return false;
  char buf[16];
  for (std::size_t i = 0; i < word.size(); ++i) buf[i] = static_cast<char>(word[i]);
  std::string_view key(buf, word.size());
  return std::binary_search(kCommonStarters.begin(), kCommonStarters.end(), key);
}

// JS Set insertion order with exact-string dedup. Later insertions never reorder earlier ones, so
// collection can stop as soon as `limit` distinct entities are known.
class EntitySet {
 public:
  explicit EntitySet(std::size_t limit) : limit_(limit) {}
  bool full() const { return items_.size() >= limit_; }
  void add(View entity) {
    if (full() || seen_.find(entity) != seen_.end()) return;
    items_.emplace_back(entity);
    seen_.insert(items_.back());
  }
  std::vector<std::u16string> take() { return std::move(items_); }

 private:
  std::size_t limit_;
  std::set<std::u16string, std::less<>> seen_;  // transparent: looks up views without copying
  std::vector<std::u16string> items_;
};

}  // namespace

std::vector<std::u16string> extractEntities(View text, std::size_t limit) {
  EntitySet set(limit);
  if (set.full()) return {};

  for (const match::PhraseSpan& p : match::findProperNounPhrases(text)) {
    if (set.full()) return set.take();
    if (isCommonStarter(text.substr(p.begin, p.firstWordEnd - p.begin))) continue;
    set.add(text.substr(p.begin, p.end - p.begin));
  }
  if (set.full()) return set.take();

  // The four word-shaped kinds are added kind by kind, so collect each kind's words in one pass.
  std::vector<match::Span> pascal, camel, snake, vowelless;
  match::forEachWord(text, [&](std::size_t b, std::size_t e) {
    View word = text.substr(b, e - b);
    if (js::isUpper(word[0])) {
      if (match::isPascalCase(word)) pascal.push_back({b, e});
    } else if (js::isLower(word[0])) {
      if (match::isCamelCase(word)) camel.push_back({b, e});
      if (match::isSnakeCase(word)) snake.push_back({b, e});
    }
    if (js::isAlpha(word[0]) && match::isVowelless(word)) vowelless.push_back({b, e});
  });
  for (const auto* kind : {&pascal, &camel, &snake}) {
    for (const match::Span& w : *kind) set.add(text.substr(w.begin, w.end - w.begin));
  }
  std::u16string lower;
  for (const match::Span& w : vowelless) {
    if (set.full()) return set.take();
    lower.assign(text.substr(w.begin, w.end - w.begin));
    for (char16_t& c : lower) c = js::asciiLower(c);
    set.add(lower);
  }
  for (const match::Span& m : match::findNumbersWithUnit(text, match::UnitSet::kEntity)) {
    if (set.full()) break;
    set.add(js::trimView(text.substr(m.begin, m.end - m.begin)));
  }
  return set.take();
}

}  // namespace cce
