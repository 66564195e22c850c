// SPDX-License-Identifier: MIT
// UTF-8/WTF-8 <-> UTF-16 conversion, decoding invalid input exactly as TextDecoder does.
#include <cstdint>
#include <cstring>

#include "jscompat/string.h"

namespace cce::js {
namespace {

constexpr char16_t kReplacement = 0xFFFD;

// Eight bytes at a time while the text is ASCII: most JSON is, and this is the 6 MB hot path.
inline bool isAsciiWord(const unsigned char* p) {
  std::uint64_t word;
  std::memcpy(&word, p, sizeof word);
  return (word & 0x8080808080808080ULL) == 0;
}

// The same for four UTF-16 units.
inline bool isAsciiUnits(const char16_t* p) {
  std::uint64_t word;
  std::memcpy(&word, p, sizeof word);
  return (word & 0xFF80FF80FF80FF80ULL) == 0;
}

}  // namespace

U16 fromUtf8(std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const unsigned char* const end = p + bytes.size();

  // Most strings are pure ASCII: widen those in one pass into a buffer of the exact size (the
  // iterator constructor allocates once and skips the zero-fill that resize would do).
  const unsigned char* ascii = p;
  while (end - ascii >= 8 && isAsciiWord(ascii)) ascii += 8;
  while (ascii < end && *ascii < 0x80) ++ascii;
  if (ascii == end) return U16(p, end);

  U16 out;
  out.resize(bytes.size());  // never more UTF-16 units than bytes
  char16_t* o = out.data();
  for (; p < ascii; ++p) *o++ = *p;

  while (p < end) {
    while (end - p >= 8 && isAsciiWord(p)) {
      for (int k = 0; k < 8; ++k) o[k] = p[k];
      o += 8;
      p += 8;
    }
    if (p == end) break;
    unsigned char lead = *p;
    if (lead < 0x80) {
      *o++ = lead;
      ++p;
      continue;
    }
    // The WHATWG decoder: the lead byte fixes how many continuation bytes follow and the range
    // the first of them must fall in (which rules out overlongs and values above U+10FFFF). The
    // one deviation is WTF-8: after ED the first continuation may be A0..BF, giving a surrogate
    // code point, so that lone surrogates written by toUtf8 come back unchanged.
    int need;
    unsigned char lower = 0x80, upper = 0xBF;
    char32_t cp;
    if (lead >= 0xC2 && lead <= 0xDF) {
      need = 1;
      cp = lead & 0x1F;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      need = 2;
      cp = lead & 0x0F;
      if (lead == 0xE0) lower = 0xA0;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      need = 3;
      cp = lead & 0x07;
      if (lead == 0xF0) lower = 0x90;
      if (lead == 0xF4) upper = 0x8F;
    } else {
      *o++ = kReplacement;
      ++p;
      continue;
    }
    ++p;
    bool complete = true;
    for (int k = 0; k < need; ++k) {
      if (p == end || *p < lower || *p > upper) {
        // A maximal subpart ends here: one U+FFFD for it, and the offending byte (not consumed)
        // starts afresh.
        complete = false;
        break;
      }
      cp = (cp << 6) | (*p & 0x3F);
      ++p;
      lower = 0x80;
      upper = 0xBF;
    }
    if (!complete) {
      *o++ = kReplacement;
    } else if (cp < 0x10000) {
      *o++ = static_cast<char16_t>(cp);
    } else {
      cp -= 0x10000;
      *o++ = static_cast<char16_t>(0xD800 + (cp >> 10));
      *o++ = static_cast<char16_t>(0xDC00 + (cp & 0x3FF));
    }
  }
  out.resize(static_cast<std::size_t>(o - out.data()));
  return out;
}

std::string toUtf8(U16View s) {
  // Sizing pass first, so the output is written in place with no growth or over-allocation. A unit
  // takes 1-3 bytes by value (a lone surrogate 3, as WTF-8); a proper pair takes 4: 3 counted for
  // its high half, 1 for the low half, which is skipped. Both passes step over ASCII four units at
  // a time.
  const char16_t* const data = s.data();
  const std::size_t n = s.size();
  std::size_t size = n;
  for (std::size_t i = 0; i < n;) {
    if (n - i >= 4 && isAsciiUnits(data + i)) {
      i += 4;
      continue;
    }
    char16_t c = data[i++];
    size += (c >= 0x80) + (c >= 0x800);
    if ((c & 0xFC00) == 0xD800 && i < n && (data[i] & 0xFC00) == 0xDC00) ++i;
  }
  std::string out(size, '\0');
  char* o = out.data();
  for (std::size_t i = 0; i < n;) {
    if (n - i >= 4 && isAsciiUnits(data + i)) {
      for (int k = 0; k < 4; ++k) o[k] = static_cast<char>(data[i + k]);
      o += 4;
      i += 4;
      continue;
    }
    char32_t c = data[i++];
    if (c < 0x80) {
      *o++ = static_cast<char>(c);
    } else if (c < 0x800) {
      *o++ = static_cast<char>(0xC0 | (c >> 6));
      *o++ = static_cast<char>(0x80 | (c & 0x3F));
    } else if ((c & 0xFC00) == 0xD800 && i < n && (data[i] & 0xFC00) == 0xDC00) {
      char32_t cp = 0x10000 + ((c - 0xD800) << 10) + (char32_t(data[i++]) - 0xDC00);
      *o++ = static_cast<char>(0xF0 | (cp >> 18));
      *o++ = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      *o++ = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      *o++ = static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      *o++ = static_cast<char>(0xE0 | (c >> 12));
      *o++ = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      *o++ = static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

}  // namespace cce::js
