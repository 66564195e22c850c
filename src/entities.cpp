// SPDX-License-Identifier: MIT
// Spec §7: entity extraction (proper nouns, identifiers, vowelless words, numbers with units).
#include "entities.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <set>
#include <string_view>

#include "jscompat/string.h"
#include "match/identifiers.h"

namespace cce {
namespace {

using View = std::u16string_view;

#if CCE_MATCH_SSE2
// Lane masks of 64 units: bit k is unit k. The speed build's walk takes words by their start and
// end bits instead of unit by unit, and settles the common word (lower-case letters with a vowel)
// by the masks of its units. The units are narrowed to bytes with unsigned saturation (a unit
// above 0xFF becomes 0xFF, one above 0x7FFF, negative as a signed lane, 0x00), so only ASCII
// units land on ASCII bytes: the masks of the text itself are those of its ASCII copy
// (match::asciiCopyOf, which the word scanner reads), and no copy is needed.
struct WordLanes {
  std::uint64_t word = 0;     // [A-Za-z0-9_]
  std::uint64_t unusual = 0;  // [A-Z0-9_]
  std::uint64_t vowel = 0;    // [aeiouyAEIOUY] (match::cls::kVowel)
};

inline __m128i bytesInRange(__m128i b, char lo, char span) {
  const __m128i x = _mm_sub_epi8(b, _mm_set1_epi8(lo));
  return _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(span)), x);
}

struct SixteenWordLanes {
  unsigned word, unusual, vowel;
};

inline SixteenWordLanes sixteenWordLanes(const char16_t* p) {
  const __m128i b = _mm_packus_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)),
                                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 8)));
  const __m128i folded = _mm_or_si128(b, _mm_set1_epi8(0x20));
  const __m128i unusual = _mm_or_si128(
      _mm_or_si128(bytesInRange(b, 'A', 25), bytesInRange(b, '0', 9)),
      _mm_cmpeq_epi8(b, _mm_set1_epi8('_')));
  const __m128i word = _mm_or_si128(unusual, bytesInRange(b, 'a', 25));
  const __m128i vowel = _mm_or_si128(
      _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(folded, _mm_set1_epi8('a')),
                                _mm_cmpeq_epi8(folded, _mm_set1_epi8('e'))),
                   _mm_or_si128(_mm_cmpeq_epi8(folded, _mm_set1_epi8('i')),
                                _mm_cmpeq_epi8(folded, _mm_set1_epi8('o')))),
      _mm_or_si128(_mm_cmpeq_epi8(folded, _mm_set1_epi8('u')),
                   _mm_cmpeq_epi8(folded, _mm_set1_epi8('y'))));
  return {static_cast<unsigned>(_mm_movemask_epi8(word)),
          static_cast<unsigned>(_mm_movemask_epi8(unusual)),
          static_cast<unsigned>(_mm_movemask_epi8(vowel))};
}

inline WordLanes wordLanes(const char16_t* p) {
  WordLanes m;
  // A loop LLVM may not unroll, as the classifier's blockMasks: four copies need more v128
  // constants and temporaries at once than V8 has xmm registers.
#if defined(__clang__)
#pragma clang loop unroll(disable)
#endif
  for (unsigned k = 0; k < 4; ++k) {
    const SixteenWordLanes l = sixteenWordLanes(p + 16 * k);
    m.word |= std::uint64_t{l.word} << (16 * k);
    m.unusual |= std::uint64_t{l.unusual} << (16 * k);
    m.vowel |= std::uint64_t{l.vowel} << (16 * k);
  }
  return m;
}
#endif

#if CCE_MATCH_SSE2
// The upper-case walk's lanes (see collectCapitalStartsByLanes), narrowed as WordLanes.
struct CapitalLanes {
  std::uint64_t word = 0;   // [A-Za-z0-9_]
  std::uint64_t upper = 0;  // [A-Z]
  std::uint64_t lower = 0;  // [a-z]
};

inline CapitalLanes capitalLanes(const char16_t* p) {
  CapitalLanes m;
#if defined(__clang__)
#pragma clang loop unroll(disable)
#endif
  for (unsigned k = 0; k < 4; ++k) {
    const __m128i b = _mm_packus_epi16(
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k)),
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k + 8)));
    const __m128i upper = bytesInRange(b, 'A', 25);
    const __m128i lower = bytesInRange(b, 'a', 25);
    const __m128i word = _mm_or_si128(
        _mm_or_si128(upper, lower),
        _mm_or_si128(bytesInRange(b, '0', 9), _mm_cmpeq_epi8(b, _mm_set1_epi8('_'))));
    m.word |= std::uint64_t{static_cast<unsigned>(_mm_movemask_epi8(word))} << (16 * k);
    m.upper |= std::uint64_t{static_cast<unsigned>(_mm_movemask_epi8(upper))} << (16 * k);
    m.lower |= std::uint64_t{static_cast<unsigned>(_mm_movemask_epi8(lower))} << (16 * k);
  }
  return m;
}
#endif

// A word of up to 8 ASCII letters packed 7 bits per letter, then its length in 4 bits: distinct
// words get distinct keys.
constexpr std::uint64_t packedKey(std::string_view word) {
  std::uint64_t key = 0;
  for (char c : word) key = (key << 7) | static_cast<std::uint64_t>(c);
  return (key << 4) | word.size();
}

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

template <std::size_t N>
constexpr std::array<std::uint64_t, N> sortedKeys(const std::array<std::string_view, N>& words) {
  std::array<std::uint64_t, N> keys{};
  for (std::size_t i = 0; i < N; ++i) {
    std::uint64_t key = packedKey(words[i]);
    std::size_t j = i;
    for (; j > 0 && keys[j - 1] > key; --j) keys[j] = keys[j - 1];
    keys[j] = key;
  }
  return keys;
}
constexpr auto kStarterKeys = sortedKeys(kCommonStarters);
constexpr bool allPackable(const std::array<std::string_view, 88>& words) {
  for (std::string_view w : words) {
    if (w.size() > 8) return false;
  }
  return true;
}
static_assert(allPackable(kCommonStarters), "a starter too long for packedKey");

// The starter check runs for every proper-noun phrase, so it compares integers.
bool isCommonStarter(View word) {
  // Only ASCII letters reach here ([A-Z][a-z]+), and no starter is longer than 8 letters.
  if (word.size() > 8) return false;
  std::uint64_t key = 0;
  for (char16_t c : word) key = (key << 7) | c;
  key = (key << 4) | word.size();
  return std::binary_search(kStarterKeys.begin(), kStarterKeys.end(), key);
}

// The distinct entities of one kind in first-seen order. The kinds never share a value (proper
// nouns have one capital per word and whitespace between words, Pascal words two capitals and no
// space, camel and snake words start lower-case and have a capital resp. an underscore, vowelless
// words are lower-cased letters only, numbers start with a digit), so the JS Set over all kinds
// equals per-kind sets concatenated in kind order. Only the first `limit` of that concatenation
// are kept, and the kinds before this one only grow, so a kind is full once it and the kinds
// before it hold `limit`. Entities are views of the text; vowelless words (`foldCase`) are compared
// and reported lower-cased. With the engine's limit of 10 a linear look-up beats a tree; larger
// limits (API callers) get the tree to stay linear.
class DistinctList {
 public:
  // `counts` is shared by the kinds: counts[k] = entities of kind k and of the kinds before it.
  DistinctList(std::size_t limit, std::size_t* counts, std::size_t kind, bool foldCase = false)
      : limit_(limit), counts_(counts), kind_(kind), foldCase_(foldCase) {}
  const std::vector<View>& items() const { return items_; }
  bool full() const { return counts_[kind_] >= limit_; }
  void add(View entity) {
    if (full() || contains(entity)) return;
    if (items_.empty()) items_.reserve(std::min<std::size_t>(limit_, kLinearLimit));
    items_.push_back(entity);
    for (std::size_t k = kind_; k < kKinds; ++k) ++counts_[k];
    if (limit_ > kLinearLimit) seen_.insert(normalized(entity));
  }
  bool contains(View entity) const {
    if (limit_ > kLinearLimit) return seen_.find(normalized(entity)) != seen_.end();
    for (View item : items_) {
      if (item.size() != entity.size()) continue;
      std::size_t k = 0;
      if (foldCase_) {
        while (k < entity.size() && js::asciiLower(item[k]) == js::asciiLower(entity[k])) ++k;
      } else {
        while (k < entity.size() && item[k] == entity[k]) ++k;
      }
      if (k == entity.size()) return true;
    }
    return false;
  }
  /// The entity as it is reported.
  std::u16string value(View entity) const {
    std::u16string out(entity);
    if (foldCase_) {
      for (char16_t& c : out) c = js::asciiLower(c);
    }
    return out;
  }

  static constexpr std::size_t kKinds = 6;

 private:
  static constexpr std::size_t kLinearLimit = 16;
  std::u16string normalized(View entity) const { return value(entity); }

  std::size_t limit_;
  std::size_t* counts_;
  std::size_t kind_;
  bool foldCase_;
  std::vector<View> items_;
  std::set<std::u16string, std::less<>> seen_;  // only for limits above kLinearLimit
};

// Whether a word can start a proper noun or a number, or have one of the identifier shapes; the
// word scan skips the others without leaving its loop. Most words are lower-case letters with a
// vowel. No shape allows a digit, nor a word that starts with `_`; a capital followed by `_` fits
// no shape either, and cannot start a proper noun (its first word must end at a boundary).
bool mayYieldEntity(std::size_t, std::uint8_t first, std::uint8_t rest, std::size_t length) {
  using namespace match::cls;
  const std::uint8_t all = first | rest;
  if ((all & (kUpper | kDigit | kUnderscore)) == 0) {
    return (all & kVowel) == 0 && length >= 3;  // the common case: lower-case letters only
  }
  if (first & kDigit) return true;
  if (first & kUpper) return (rest & (kDigit | kUnderscore)) == 0;
  return (first & kLower) != 0 && (rest & kDigit) == 0;
}

// The kinds are added kind by kind (§7), but each is a whole-word pattern or starts at a word
// start, so one walk over the words collects them all, each kind into its own list (see
// DistinctList). Like the global regexes, the proper-noun and number scans resume at the end of
// their previous match.
class EntityCollector {
 public:
  // `passOver`: the upper-case walk passes over the words that can no longer enter (the SIMD
  // builds; their tests turn it off to hold the walk to the one that hands every word on).
  EntityCollector(View text, std::size_t limit, bool passOver = true)
      : passOver_(passOver),
        text_(text),
        limit_(limit),
        proper_(limit, counts_, 0),
        pascal_(limit, counts_, 1),
        camel_(limit, counts_, 2),
        snake_(limit, counts_, 3),
        vowelless_(limit, counts_, 4, true),
        numbers_(limit, counts_, 5) {}

  // The walk goes chunk by chunk (each ending after a non-word unit, so no word is cut): it often
  // stops early, and the scanner's preparation then covers only what was walked.
  std::vector<std::u16string> collect() {
    const std::size_t n = text_.size();
    for (std::size_t start = 0; start < n;) {
      std::size_t end = std::min(n, start + kChunk);
      while (end < n && js::isWord(text_[end - 1])) ++end;
      match::WordScanner words(text_.substr(start, end - start));
      match::Word w;
      while (words.next<false>(mayYieldEntity, w) == match::Next::kWord) {
        w.begin += start;
        w.end += start;
        addWord(w);
        // Proper nouns fill the list: nothing else can enter.
        if (proper_.full()) return result();
        // With snake words full, so are the kinds after them, and the kinds that can still grow
        // (proper nouns, Pascal and camel words) all have an upper-case letter: only the words
        // around those letters need a look.
        if (snake_.full()) return collectAroundUpper(w.end);
      }
      start = end;
    }
    return result();
  }

#if CCE_MATCH_SSE2
  // The walk of collect() by word lanes, 64 units a step (the speed build): the word scan pays a
  // hard-to-predict branch at each word end, and most words are lower-case letters with a vowel,
  // which mayYieldEntity rejects; the lanes reject them by the masks of their units. The other
  // words, and those that cross a block edge, get their classes from the scanner's table as
  // WordScanner gives them. The lanes read the text where it is (see WordLanes): nothing is
  // prepared, so unlike the word scan the walk needs no chunks.
  std::vector<std::u16string> collectByLanes() {
    constexpr std::size_t kBlock = 64;
    constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    const char16_t* const a = text_.data();
    const std::size_t n = text_.size();
    std::vector<std::u16string> out;
    // A word [b, e): its classes from the table (the lanes say its units are ASCII word units),
    // then the walk's own steps. True when the walk is over (`out` holds the result).
    auto take = [&](std::size_t b, std::size_t e) {
      const std::uint8_t* const table = match::detail::kScanTable.bits;
      const std::uint8_t first = table[a[b]];
      std::uint8_t all = 0;
      for (std::size_t k = b + 1; k < e; ++k) all |= table[a[k]];
      const std::uint8_t rest = all & (match::cls::kWord | match::cls::kVowel);
      if (!mayYieldEntity(b, first, rest, e - b)) return false;
      const match::Word w{b, e, first, rest};
      addWord(w);
      if (proper_.full()) {
        out = result();
        return true;
      }
      if (snake_.full()) {
        out = collectAroundUpper(w.end);
        return true;
      }
      return false;
    };
    std::size_t wordStart = kNone;  // a word that runs on past the last block
    std::uint64_t previousWord = 0;
    char16_t tail[kBlock];
    for (std::size_t base = 0;; base += kBlock) {
      const bool last = base + kBlock > n;
      const char16_t* p = a + base;
      if (last) {
        std::fill(std::begin(tail), std::end(tail), u' ');
        std::copy(a + base, a + n, tail);
        p = tail;
      }
      const WordLanes m = wordLanes(p);
      const std::uint64_t shifted = (m.word << 1) | previousWord;
      const std::uint64_t starts = m.word & ~shifted;
      std::uint64_t ends = ~m.word & shifted;
      previousWord = m.word >> 63;
      if (wordStart != kNone && ends != 0) {
        if (take(wordStart, base + static_cast<std::size_t>(__builtin_ctzll(ends)))) return out;
        ends &= ends - 1;
        wordStart = kNone;
      }
      // The other ends close words that start in this block. Adding a lane mask inside the word
      // mask carries out of a word exactly when the word holds one of its lanes, into the unit
      // after it (an end bit), and no further: so the ends of the words with an unusual unit, and
      // those of the words without a vowel, come out of two additions, and only those words are
      // looked at (a fourth of the scale session's 139 K words), in text order.
      for (std::uint64_t wanted = ends & ((m.word + m.unusual) | ~(m.word + m.vowel));
           wanted != 0; wanted &= wanted - 1) {
        const unsigned to = static_cast<unsigned>(__builtin_ctzll(wanted));
        const std::uint64_t before = starts & ((std::uint64_t{1} << to) - 1);
        const unsigned from = 63 - static_cast<unsigned>(__builtin_clzll(before));
        if (take(base + from, base + to)) return out;
      }
      // A word that reaches the block's end and starts in it runs on into the next block.
      if ((m.word >> 63) != 0 && starts != 0) {
        wordStart = base + 63 - static_cast<unsigned>(__builtin_clzll(starts));
      }
      if (last) return result();
    }
  }
#endif

 private:
  static constexpr std::size_t kChunk = 1024;

  // The word that starts at `b` (a word unit), read to its end, for the upper-case walks.
  match::Word wordFrom(std::size_t b) const {
    const std::size_t n = text_.size();
    match::Word w{b, b + 1, match::classOf(text_[b]), 0};
    for (; w.end < n; ++w.end) {
      const std::uint8_t k = match::classOf(text_[w.end]);
      if ((k & match::cls::kWord) == 0) break;
      w.rest |= k;
    }
    return w;
  }

  // One word of the walk: a number, a proper-noun phrase start, an identifier, a vowelless word.
  void addWord(const match::Word& w) {
    const std::size_t b = w.begin, e = w.end;
    if (w.first & match::cls::kDigit) {
      if (b < numberEnd_ || numbers_.full() ||
          !match::mayStartNumberWithUnit(text_, w, match::Fraction::kAllowed)) {
        return;
      }
      std::size_t end = match::matchNumberWithUnitAt(text_, b, match::UnitSet::kEntity);
      if (end != 0) {
        numbers_.add(js::trimView(text_.substr(b, end - b)));
        numberEnd_ = end;
      }
      return;
    }
    if ((w.first & match::cls::kUpper) && b >= properEnd_ && e > b + 1 &&
        js::isLower(text_[b + 1])) {
      match::PhraseSpan p;
      if (match::matchProperNounAt(text_, b, &p)) {
        properEnd_ = p.end;
        if (!isCommonStarter(text_.substr(p.begin, p.firstWordEnd - p.begin))) {
          proper_.add(text_.substr(p.begin, p.end - p.begin));
        }
      }
    }
    // A shape is confirmed only for a word its list can still take: identifiers repeat a lot.
    const View word = text_.substr(b, e - b);
    const unsigned candidates = match::shapeCandidates(w.first, w.rest, word.size());
    const unsigned identifier = candidates & ~match::shape::kVowelless;
    DistinctList* list = identifier == match::shape::kPascal  ? &pascal_
                         : identifier == match::shape::kCamel ? &camel_
                         : identifier == match::shape::kSnake ? &snake_
                                                              : nullptr;
    if (list && !list->full() && !list->contains(word) && match::hasShape(word, identifier)) {
      list->add(word);
    }
    if (candidates & match::shape::kVowelless) vowelless_.add(word);
  }

  // The rest of the walk from `from` (a word end) for the words that hold an upper-case letter.
  std::vector<std::u16string> collectAroundUpper(std::size_t from) {
#if CCE_MATCH_SSE2
    if (passOver_ && camel_.full()) {
      collectCapitalStartsByLanes(from);
      return result();
    }
#endif
    const std::size_t n = text_.size();
    for (std::size_t i = match::findUpper(text_, from); i < n; i = match::findUpper(text_, i)) {
      std::size_t b = i;
      while (b > from && js::isWord(text_[b - 1])) --b;
      const match::Word w = wordFrom(b);
      addWord(w);
      if (proper_.full()) break;
      i = w.end;
#if CCE_MATCH_SSE2
      if (passOver_) {
        // The rest of a proper-noun phrase the word started (or was in) is `[A-Z][a-z]+` words
        // and whitespace: no phrase starts inside it, and such words have no identifier shape
        // (one capital, no `_`); only their vowelless kind, which is full here, could take them.
        i = std::max(i, properEnd_);
        if (camel_.full()) {
          collectCapitalStartsByLanes(i);
          break;
        }
      }
#endif
    }
    return result();
  }

#if CCE_MATCH_SSE2
  // The upper-case walk once camel words are full too (the speed build). Only proper nouns and
  // Pascal words can still enter, and both start with a capital followed by a lower-case letter
  // at a word start: a capital inside a word makes a camel word at best, a word like `HTTP` or
  // `APIClient` fits neither (a Pascal word's every capital is followed by a lower-case letter),
  // and the kinds that would take the others are full. So the walk takes those word starts from
  // lane masks, 64 units a step, instead of stopping at every capital and reading its word (in
  // the scale session 28 K of the upper-case walk's 31 K words came after camel words filled).
  // `from` is not inside a word.
  void collectCapitalStartsByLanes(std::size_t from) {
    constexpr std::size_t kBlock = 64;
    const std::size_t n = text_.size();
    std::size_t next = from;  // the walk goes on from a word end or the end of a phrase
    std::uint64_t previousWord = 0;
    char16_t tail[kBlock + 1];
    for (std::size_t base = from; base < n;) {
      // Lane 63's follower is read too, so the last block is the one that reaches the end.
      const bool last = base + kBlock >= n;
      const char16_t* p = text_.data() + base;
      if (last) {
        std::fill(std::begin(tail), std::end(tail), u' ');
        std::copy(text_.data() + base, text_.data() + n, tail);
        p = tail;
      }
      const CapitalLanes m = capitalLanes(p);
      const std::uint64_t lowerAfter = js::isLower(p[kBlock]) ? std::uint64_t{1} << 63 : 0;
      const std::uint64_t starts = m.word & ~((m.word << 1) | previousWord);
      for (std::uint64_t wanted = starts & m.upper & ((m.lower >> 1) | lowerAfter); wanted != 0;
           wanted &= wanted - 1) {
        const std::size_t b = base + static_cast<std::size_t>(__builtin_ctzll(wanted));
        if (b < next) continue;
        const match::Word w = wordFrom(b);
        addWord(w);
        if (proper_.full()) return;
        next = std::max(w.end, properEnd_);  // as the walk above
      }
      if (last) return;
      previousWord = m.word >> 63;
      base += kBlock;
      if (next > base) {
        base = next;  // not a word unit: the unit before it does not matter
        previousWord = 0;
      }
    }
  }
#endif

  // Earlier kinds may have grown after a later one stopped, so the concatenation is cut again.
  std::vector<std::u16string> result() const {
    std::vector<std::u16string> out;
    out.reserve(std::min<std::size_t>(limit_, counts_[DistinctList::kKinds - 1]));
    for (const DistinctList* kind :
         {&proper_, &pascal_, &camel_, &snake_, &vowelless_, &numbers_}) {
      for (View entity : kind->items()) {
        if (out.size() == limit_) return out;
        out.push_back(kind->value(entity));
      }
    }
    return out;
  }

  bool passOver_;
  View text_;
  std::size_t limit_;
  std::size_t counts_[DistinctList::kKinds] = {};
  DistinctList proper_, pascal_, camel_, snake_, vowelless_, numbers_;
  std::size_t properEnd_ = 0;
  std::size_t numberEnd_ = 0;
};

}  // namespace

std::vector<std::u16string> extractEntities(View text, std::size_t limit) {
  if (limit == 0) return {};
#if CCE_MATCH_SSE2
  return EntityCollector(text, limit).collectByLanes();
#else
  return EntityCollector(text, limit).collect();
#endif
}

namespace detail {
std::vector<std::u16string> extractEntitiesPassingNone(View text, std::size_t limit) {
  if (limit == 0) return {};
  return EntityCollector(text, limit, false).collect();
}

std::vector<std::u16string> extractEntitiesByWords(View text, std::size_t limit) {
#if CCE_MATCH_SSE2
  if (limit == 0) return {};
  return EntityCollector(text, limit).collect();
#else
  // The word walk is these builds' only walk; a second caller of collect() would change how the
  // size build inlines it (cce.wasm stays byte for byte the same).
  return extractEntities(text, limit);
#endif
}
}  // namespace detail

}  // namespace cce
