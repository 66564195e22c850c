// SPDX-License-Identifier: MIT
// Strict request validation for the default mode, and the pre-parse request size limit.
#include "validation.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "compiler.h"
#include "jscompat/string.h"
#include "json_io.h"
#include "string_index.h"

namespace cce {

using json::Value;

namespace {

std::string at(std::size_t i) {
  return "compress(): messages[" + js::decimalAscii(i) + "]";
}
std::string pointer(std::size_t i) { return "/messages/" + js::decimalAscii(i); }

// Chat APIs accept a string or a list of typed parts; `null` (or no content) only on an assistant
// turn that carries tool calls. Anything else is counted as "" by the engine and would pass
// through silently, which hides a caller's bug.
Result<bool> checkContent(const Message& message, std::size_t i) {
  switch (message.contentKind) {
    case Message::ContentKind::String:
      return true;
    case Message::ContentKind::Absent:
      if (message.hasToolCalls) return true;
      return invalid(at(i) + ".content may be null or missing only on a message with tool_calls",
                     pointer(i) + "/content");
    case Message::ContentKind::Array:
      if (!message.badPart) return true;
      return invalid(at(i) + ".content[" + js::decimalAscii(*message.badPart) +
                         "] must be a content part (an object with a string \"type\")",
                     pointer(i) + "/content/" + js::decimalAscii(*message.badPart));
    case Message::ContentKind::Other:
      break;
  }
  return invalid(at(i) + ".content must be a string or an array of content parts",
                 pointer(i) + "/content");
}

Result<bool> checkMessages(const std::vector<Message>& views) {
  // Distinct ids in order of first use, and where each was first used.
  std::vector<std::size_t> firstUse;
  StringIndex ids([&](std::uint32_t id) { return std::u16string_view(views[firstUse[id]].idKey); });
  for (std::size_t i = 0; i < views.size(); ++i) {
    const Message& message = views[i];
    // Ids key the verbatim store: 1 and "1" would collide there, so only strings are accepted.
    if (!message.id.isString()) return invalid(at(i) + ".id must be a string", pointer(i) + "/id");
    const std::uint32_t id = ids.intern(message.idKey);
    if (id == firstUse.size()) {
      firstUse.push_back(i);
    } else {
      return invalid(at(i) + ".id duplicates messages[" + js::decimalAscii(firstUse[id]) +
                         "].id (ids must be unique: they key the verbatim store)",
                     pointer(i) + "/id");
    }
    if (Result<bool> ok = checkContent(message, i); !ok) return ok;
  }
  return true;
}

CCE_NOINLINE Result<bool> checkNotNegative(double value, const char* name) {
  if (value >= 0) return true;
  return invalid(std::string("options.") + name + " must not be negative",
                 std::string("/options/") + name);
}

Result<bool> checkOptions(const CompressOptions& parsed) {
  if (Result<bool> ok = checkNotNegative(parsed.recencyWindow, "recencyWindow"); !ok) return ok;
  if (parsed.tokenBudget) {
    if (Result<bool> ok = checkNotNegative(*parsed.tokenBudget, "tokenBudget"); !ok) return ok;
  }
  if (Result<bool> ok = checkNotNegative(parsed.minRecencyWindow, "minRecencyWindow"); !ok) {
    return ok;
  }
  if (!(parsed.fuzzyThreshold >= 0 && parsed.fuzzyThreshold <= 1)) {
    return invalid("options.fuzzyThreshold must be between 0 and 1", "/options/fuzzyThreshold");
  }
  // NaN (not a finite number) fails the comparison too.
  if (parsed.maxInputBytes && !(*parsed.maxInputBytes >= 0)) {
    return invalid("options.maxInputBytes must be a non-negative number (0: no limit)",
                   "/options/maxInputBytes");
  }
  return true;
}

// ---- the pre-parse scan ----------------------------------------------------------------------

constexpr std::size_t kNotFound = std::string_view::npos;

bool isJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Index just past the closing quote of the string opening at `open`; kNotFound if unterminated.
// A quote ends the string iff an even number of backslashes precedes it; each backslash is counted
// for at most the one quote that ends its run, so the scan stays linear.
std::size_t skipString(std::string_view t, std::size_t open) {
  std::size_t from = open + 1;
  while (from < t.size()) {
    const void* hit = std::memchr(t.data() + from, '"', t.size() - from);
    if (!hit) return kNotFound;
    const std::size_t quote = static_cast<std::size_t>(static_cast<const char*>(hit) - t.data());
    std::size_t backslashes = 0;
    while (quote - backslashes > open + 1 && t[quote - backslashes - 1] == '\\') ++backslashes;
    if (backslashes % 2 == 0) return quote + 1;
    from = quote + 1;
  }
  return kNotFound;
}

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Whether the JSON string body `raw` (between the quotes) decodes to the ASCII text `want`.
// Escapes count: JSON.parse reads "opti\u006fns" as "options".
bool keyEquals(std::string_view raw, std::string_view want) {
  std::size_t k = 0;
  for (std::size_t i = 0; i < raw.size(); ++k) {
    char c = raw[i];
    if (c == '\\') {
      if (i + 1 >= raw.size()) return false;
      const char e = raw[i + 1];
      i += 2;
      switch (e) {
        case 'b': c = '\b'; break;
        case 'f': c = '\f'; break;
        case 'n': c = '\n'; break;
        case 'r': c = '\r'; break;
        case 't': c = '\t'; break;
        case 'u': {
          if (i + 4 > raw.size()) return false;
          int code = 0;
          for (std::size_t h = 0; h < 4; ++h) {
            const int d = hexValue(raw[i + h]);
            if (d < 0) return false;
            code = code * 16 + d;
          }
          i += 4;
          if (code >= 0x80) return false;  // `want` is ASCII
          c = static_cast<char>(code);
          break;
        }
        default: c = e;  // \" \\ \/
      }
    } else {
      ++i;
    }
    if (k >= want.size() || want[k] != c) return false;
  }
  return k == want.size();
}

// A JSON number token starting at `i`, if it is one (the JSON reader validates it later).
std::optional<double> numberAt(std::string_view t, std::size_t i) {
  if (i >= t.size() || !(t[i] == '-' || (t[i] >= '0' && t[i] <= '9'))) return std::nullopt;
  std::size_t end = i;
  while (end < t.size() && std::strchr("+-.eE0123456789", t[end]) != nullptr && t[end] != '\0') {
    ++end;
  }
  const std::string token(t.substr(i, end - i));
  char* stop = nullptr;
  const double d = std::strtod(token.c_str(), &stop);
  if (stop != token.c_str() + token.size() || !std::isfinite(d)) return std::nullopt;
  return d;
}

}  // namespace

Result<bool> validateCompressRequest(const std::vector<Message>& views,
                                     const CompressOptions& options) {
  if (Result<bool> ok = checkMessages(views); !ok) return ok;
  return checkOptions(options);
}

std::optional<double> scanMaxInputBytes(std::string_view t) {
  // Only two levels matter: the request object and its "options" object. Deeper containers are
  // tracked by kind so that keys can be told from values.
  bool isObject[kMaxJsonDepth + 1];
  std::size_t depth = 0;
  bool expectKey = false;   // the next string in the current object is a key
  bool topKeyIsOptions = false;
  bool optKeyIsMax = false;
  bool inOptions = false;   // depth 2 is the value of the request's (last so far) "options"
  std::optional<double> found;
  std::size_t i = 0;
  while (i < t.size()) {
    const char c = t[i];
    if (c == '"') {
      const std::size_t end = skipString(t, i);
      if (end == kNotFound) return found;
      if (expectKey) {
        const std::string_view raw = t.substr(i + 1, end - i - 2);
        if (depth == 1) {
          topKeyIsOptions = keyEquals(raw, "options");
          // A repeated "options" replaces the whole earlier value, as in JSON.parse.
          if (topKeyIsOptions) found.reset();
        } else if (depth == 2 && inOptions) {
          optKeyIsMax = keyEquals(raw, "maxInputBytes");
        }
        expectKey = false;
      }
      i = end;
      continue;
    }
    switch (c) {
      case '{':
      case '[':
        if (depth == kMaxJsonDepth) return found;  // parseJson rejects this request anyway
        if (depth == 1) inOptions = c == '{' && topKeyIsOptions;
        isObject[depth++] = c == '{';
        expectKey = c == '{';
        break;
      case '}':
      case ']':
        if (depth == 0) return found;
        --depth;
        if (depth == 1) inOptions = false;
        expectKey = false;
        break;
      case ',':
        expectKey = depth > 0 && isObject[depth - 1];
        break;
      case ':':
        if (depth == 2 && inOptions && optKeyIsMax) {
          std::size_t v = i + 1;
          while (v < t.size() && isJsonSpace(t[v])) ++v;
          found = numberAt(t, v);
          optKeyIsMax = false;
        }
        break;
      default:
        break;
    }
    ++i;
  }
  return found;
}

namespace {

// Byte counts are whole numbers: a request of `size` bytes is over a limit exactly when it is over
// the limit's whole part, which is what the message names. (Whole numbers also need no JS number
// formatting, which the compress module would otherwise carry for this one message.)
std::string wholeBytes(double n) {
  return js::decimalAscii(static_cast<std::uint64_t>(std::floor(n)));
}

Result<bool> checkSize(double size, std::optional<double> given) {
  double limit = kDefaultMaxInputBytes;
  // A negative value keeps the default here; validation then reports it in the default mode.
  if (given && *given >= 0) limit = *given;
  if (limit > 0 && size > limit) {
    return Error{ErrorCode::InputTooLarge,
                 "the request is " + wholeBytes(size) + " bytes, over the limit of " +
                     wholeBytes(limit) + " (options.maxInputBytes; 0 disables it)",
                 ""};
  }
  return true;
}

}  // namespace

Result<bool> checkRequestSize(std::string_view requestText) {
  return checkSize(static_cast<double>(requestText.size()), scanMaxInputBytes(requestText));
}

Result<bool> checkRequestSize(std::size_t size, const CompressOptions& options) {
  std::optional<double> given;
  if (options.maxInputBytes && std::isfinite(*options.maxInputBytes)) given = options.maxInputBytes;
  return checkSize(static_cast<double>(size), given);
}

}  // namespace cce
