// SPDX-License-Identifier: MIT
// Safe mode (issue 18): replacement texts for cleared and cut message contents.
#include "clearing.h"

#include "jscompat/string.h"

namespace cce {

namespace {

constexpr const char16_t* kClearedOpen = u"[cce:cleared \u2014 ";
constexpr const char16_t* kCutOpen = u"\n[cce:cut ";
constexpr const char16_t* kClose = u" chars]";

bool isLowSurrogate(char16_t c) { return c >= 0xDC00 && c <= 0xDFFF; }

std::size_t digits(std::size_t v) {
  std::size_t d = 1;
  for (; v >= 10; v /= 10) ++d;
  return d;
}

}  // namespace

U16 clearedNote(std::size_t chars, const U16& ledger) {
  U16 note = kClearedOpen;
  js::appendDecimal(note, chars);
  note += u" chars";
  note += ledger;
  note += u']';
  return note;
}

std::size_t cutNoteLength(std::size_t cut) {
  // "\n[cce:cut " + digits + " chars]" + "\n"
  return std::char_traits<char16_t>::length(kCutOpen) + digits(cut) +
         std::char_traits<char16_t>::length(kClose) + 1;
}

U16 headAndTail(std::u16string_view text, std::size_t keep) {
  if (keep >= text.size()) return U16(text);
  std::size_t head = keep - keep / 3;
  std::size_t tail = keep - head;
  std::size_t tailStart = text.size() - tail;
  // Cut at line ends where one is near (within a quarter of each part), so that the head and the
  // tail are whole lines: log and tool output reads by lines.
  for (std::size_t i = head; i > head - head / 4 && i > 0; --i) {
    if (text[i - 1] == u'\n') {
      head = i;
      break;
    }
  }
  for (std::size_t i = tailStart; i < tailStart + tail / 4 && i < text.size(); ++i) {
    if (text[i] == u'\n') {
      tailStart = i + 1;
      break;
    }
  }
  // Never cut between the two halves of a surrogate pair: the cut moves by one unit instead.
  if (head > 0 && head < text.size() && isLowSurrogate(text[head])) --head;
  if (tailStart < text.size() && isLowSurrogate(text[tailStart])) ++tailStart;
  if (tailStart < head) tailStart = head;
  const std::size_t cut = tailStart - head;
  U16 out;
  out.reserve(head + cutNoteLength(cut) + (text.size() - tailStart));
  out.append(text, 0, head);
  out += kCutOpen;
  js::appendDecimal(out, cut);
  out += kClose;
  out += u'\n';
  out.append(text, tailStart, U16::npos);
  return out;
}

}  // namespace cce
