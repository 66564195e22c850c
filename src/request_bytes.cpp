// SPDX-License-Identifier: MIT
// Decoding of the wasm boundary's binary requests into engine views, with the JSON path's errors.
#include "request_bytes.h"

#include <cstdint>
#include <cstring>
#include <utility>

#include "compiler.h"
#include "jscompat/string.h"
#include "pipeline.h"

namespace cce {

namespace {

CCE_COLD Error malformed(const char* what) {
  return invalid(std::string("malformed bytes request (") + what + ")", "");
}

// `<call>(): messages[i]<what>` at `/messages/i<pathSuffix>`: built only for the first error.
CCE_COLD Error messageError(const char* call, std::uint32_t i, const char* what,
                            const char* pathSuffix) {
  const std::string index = js::decimalAscii(i);
  return invalid(std::string(call) + "(): messages[" + index + "]" + what,
                 "/messages/" + index + pathSuffix);
}

// Message flags (docs/boundary.md).
constexpr std::uint32_t kNotObject = 1u << 0;
constexpr std::uint32_t kContentString = 1u << 1;
constexpr std::uint32_t kToolCallsArray = 1u << 2;
constexpr std::uint32_t kToolCallId = 1u << 3;
constexpr std::uint32_t kMetadataTruthy = 1u << 4;
constexpr std::uint32_t kMetadataObject = 1u << 5;
constexpr std::uint32_t kOriginalTruthy = 1u << 6;
constexpr std::uint32_t kSummaryIdString = 1u << 7;
constexpr std::uint32_t kIdsArray = 1u << 8;
constexpr std::uint32_t kContentArray = 1u << 9;    // content is an array (of parts, hopefully)
constexpr std::uint32_t kContentInvalid = 1u << 10; // content is not a string, array or null
constexpr std::uint32_t kBadPart = 1u << 11;        // + word: index of the first non-part element
constexpr std::uint32_t kContentParts = 1u << 12;   // + the parts of an array content (readParts)

// Uncompress flags: the element is what JSON.stringify writes as null; the value is falsy.
constexpr std::uint32_t kJsonNull = 1u << 0;
constexpr std::uint32_t kFalsy = 1u << 0;

bool readIds(ByteReader& in, std::vector<Scalar>& ids) {
  std::uint32_t n = 0;
  if (!in.word(n)) return false;
  ids.clear();
  ids.reserve(n < 4096 ? n : 4096);  // a count is not trusted before its items are read
  for (std::uint32_t i = 0; i < n; ++i) {
    Scalar id;
    if (!in.scalar(id)) return false;
    ids.push_back(std::move(id));
  }
  return true;
}

}  // namespace

// Out of line: whole-program optimisation inlined its bounds check and copy into every read of a
// count or flag word (0.1 KB gzip of cce.wasm); a request has a few words per message.
CCE_NOINLINE bool ByteReader::word(std::uint32_t& out) {
  if (data_.size() - position_ < 4) return false;
  std::memcpy(&out, data_.data() + position_, 4);
  position_ += 4;
  return true;
}

bool ByteReader::number(double& out) {
  if (data_.size() - position_ < 8) return false;
  std::memcpy(&out, data_.data() + position_, 8);
  position_ += 8;
  return true;
}

namespace {

// What the JS host's WTF-8 encoder writes for these units: a pair as 4 bytes, a lone surrogate as
// 3, like any other unit from U+0800.
std::size_t wtf8Length(const char16_t* units, std::size_t n) {
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const char16_t c = units[i];
    if (c < 0x80) {
      bytes += 1;
    } else if (c < 0x800) {
      bytes += 2;
    } else if (c >= 0xD800 && c <= 0xDBFF && i + 1 < n && units[i + 1] >= 0xDC00 &&
               units[i + 1] <= 0xDFFF) {
      bytes += 4;
      ++i;
    } else {
      bytes += 3;
    }
  }
  return bytes;
}

constexpr std::size_t padded4(std::size_t n) { return (n + 3) & ~static_cast<std::size_t>(3); }

}  // namespace

// Out of line, as is scalar(): a message reads up to six strings, and inlined copies of the
// reader made readCompressBytes three times its size for no measurable speed.
CCE_NOINLINE bool ByteReader::string(std::u16string& out) {
  std::uint32_t length = 0;
  if (!word(length)) return false;
  ++stringCount_;
  if (kUtf16RequestsSupported && utf16_) {
    const std::size_t bytes = static_cast<std::size_t>(length) * 2;
    if (bytes > data_.size() - position_ || padded4(bytes) > data_.size() - position_) return false;
    const char* units = data_.data() + position_;
    if (reinterpret_cast<std::uintptr_t>(units) % alignof(char16_t) == 0) {
      // The host wrote UTF-16 units into raw memory: read them as such, which spares resize()'s
      // zero fill of every unit before the copy (11 MB of memset for the scale session).
      out.assign(reinterpret_cast<const char16_t*>(units), length);
    } else {
      out.resize(length);
      std::memcpy(out.data(), units, bytes);
    }
    if (measureUtf8_) {
      utf8Delta_ += static_cast<long long>(padded4(wtf8Length(out.data(), length))) -
                    static_cast<long long>(padded4(bytes));
    }
    position_ += padded4(bytes);
    return true;
  }
  const std::size_t padded = (static_cast<std::size_t>(length) + 3) & ~static_cast<std::size_t>(3);
  if (length > data_.size() - position_ || padded > data_.size() - position_) return false;
  out = js::fromUtf8(data_.substr(position_, length));
  position_ += padded;
  return true;
}

#ifndef CCE_NO_UTF16_REQUESTS
CCE_NOINLINE bool ByteReader::content(Content& out) {
  if (kUtf16RequestsSupported && utf16_ && borrow_ && !measureUtf8_) {
    const std::size_t at = position_;
    std::uint32_t length = 0;
    if (!word(length)) return false;
    const std::size_t bytes = static_cast<std::size_t>(length) * 2;
    const char* units = data_.data() + position_;
    if (bytes <= data_.size() - position_ && padded4(bytes) <= data_.size() - position_ &&
        reinterpret_cast<std::uintptr_t>(units) % alignof(char16_t) == 0) {
      // The scale session's 5.5 M units were copied here and freed after the call (4-5 % of a
      // default-mode call in wasm); they stay where the host wrote them instead.
      ++stringCount_;
      out = Content::borrowing({reinterpret_cast<const char16_t*>(units), length});
      position_ += padded4(bytes);
      return true;
    }
    position_ = at;  // read it the general way (which also reports a short buffer)
  }
  U16 text;
  if (!string(text)) return false;
  out = std::move(text);
  return true;
}
#endif

CCE_NOINLINE bool ByteReader::scalar(Scalar& out) {
  std::uint32_t kind = 0;
  if (!word(kind)) return false;
  out.text.clear();
  switch (kind) {
    case 0: out.kind = Scalar::Kind::Missing; return true;
    case 1:
      out.kind = Scalar::Kind::Null;
      out.text = u"null";
      return true;
    case 2: out.kind = Scalar::Kind::Bool; break;
    case 3: out.kind = Scalar::Kind::Number; break;
    case 4: out.kind = Scalar::Kind::String; break;
    case 5: out.kind = Scalar::Kind::Composite; break;
    default: return false;
  }
  return string(out.text);
}

bool ByteReader::option(OptionValue& out, int depth) {
  std::uint32_t tag = 0;
  if (!word(tag)) return false;
  switch (tag) {
    case 0: out.kind = json::Kind::Null; return true;
    case 1:
    case 2:
      out.kind = json::Kind::Bool;
      out.boolean = tag == 2;
      return true;
    case 3: out.kind = json::Kind::Number; return number(out.number);
    case 4: out.kind = json::Kind::String; return string(out.string);
    case 5: {
      std::uint32_t n = 0;
      if (depth <= 0 || !word(n)) return false;
      out.kind = json::Kind::Array;
      for (std::uint32_t i = 0; i < n; ++i) {
        OptionValue item;
        if (!option(item, depth - 1)) return false;
        out.items.push_back(item.kind == json::Kind::String
                                ? std::optional<U16>(std::move(item.string))
                                : std::nullopt);
      }
      return true;
    }
    case 6: out.kind = json::Kind::Object; return true;
    default: return false;
  }
}

namespace {

// word n, n × part; part = word kind: 0 text -> string text | 1 image |
// 2 other -> string JSON.stringify(part) | 3 image priced by its pixel size -> word tokens.
bool readParts(ByteReader& in, std::vector<ContentPart>& parts) {
  std::uint32_t n = 0;
  if (!in.word(n)) return false;
  parts.reserve(n < 4096 ? n : 4096);
  for (std::uint32_t i = 0; i < n; ++i) {
    std::uint32_t kind = 0;
    if (!in.word(kind) || kind > 3) return false;
    ContentPart part;
    part.kind = kind == 0 ? ContentPart::Kind::Text
                : kind == 2 ? ContentPart::Kind::Other : ContentPart::Kind::Image;
    if (kind == 3) {
      std::uint32_t tokens = 0;
      if (!in.word(tokens)) return false;
      part.imageTokens = tokens;
    } else if (kind != 1 && !in.string(part.text)) {
      return false;
    }
    parts.push_back(std::move(part));
  }
  return true;
}

}  // namespace

// The readers below report a malformed request by returning what is wrong (nullptr: nothing), and a
// request the engine must refuse through `error`; the public functions turn either into the one
// Result. Returning a Result from every check instead built and destroyed one at each (a few
// hundred bytes of wasm apiece).

namespace {

const char* decodeCompress(std::string_view bytes, bool measureUtf8Size, bool borrowContents,
                           BytesCompressRequest& request, std::optional<Error>& error) {
  ByteReader in(bytes);
  std::uint32_t magic = 0, count = 0;
  if (!in.word(magic)) return "not a compress request";
  const bool utf16 = kUtf16RequestsSupported && magic == kCompressBytesUtf16Magic;
  if (magic != kCompressBytesMagic && !utf16) return "not a compress request";
  if (utf16) in.useUtf16Strings();
  if (utf16 && measureUtf8Size) in.measureUtf8();
  if (borrowContents) in.borrowStrings();
  if (!in.word(count)) return "truncated";
  if (count == kNotAnArray) {
    error = invalid("compress(): messages must be an array", "/messages");
    return nullptr;
  }

  // Like the JSON path, every message is checked before any is used, and the first error wins.
  request.views.reserve(count < 65536 ? count : 65536);
  for (std::uint32_t i = 0; i < count; ++i) {
    std::uint32_t flags = 0;
    if (!in.word(flags)) return "truncated message";
    if (flags & kNotObject) {
      if (!error) error = messageError("compress", i, " must be an object", "");
      continue;
    }
    Message m;
    if (!in.scalar(m.id) || !in.scalar(m.role)) return "truncated message";
    if (!error && (m.id.kind == Scalar::Kind::Missing || m.id.kind == Scalar::Kind::Null)) {
      error = messageError("compress", i, " is missing required field \"id\"", "/id");
    }
    m.idKey = m.id.text;
    if (flags & kBadPart) {
      std::uint32_t part = 0;
      if (!in.word(part)) return "truncated message";
      m.badPart = part;
    }
    if (flags & kContentString) {
      m.contentIsString = true;
      m.contentKind = Message::ContentKind::String;
#ifdef CCE_NO_UTF16_REQUESTS
      if (!in.string(m.content.text())) return "truncated content";
#else
      if (!in.content(m.content)) return "truncated content";
#endif
    } else if (flags & kContentArray) {
      m.contentKind = Message::ContentKind::Array;
    } else if (flags & kContentInvalid) {
      m.contentKind = Message::ContentKind::Other;
    }
    if (flags & kToolCallsArray) {
      std::uint32_t length = 0;
      if (!in.word(length)) return "truncated message";
      m.toolCallsLength = static_cast<double>(length);
      m.hasToolCalls = length > 0;
    }
    m.hasToolCallId = (flags & kToolCallId) != 0;
    m.hasMetadata = (flags & kMetadataTruthy) != 0;
    m.metadataIsObject = (flags & kMetadataObject) != 0;
    m.hasCceOriginal = (flags & kOriginalTruthy) != 0;
    if (flags & kSummaryIdString) {
      U16 summaryId;
      if (!in.string(summaryId)) return "truncated summary_id";
      m.cceSummaryId = std::move(summaryId);
    }
    if (flags & kIdsArray) {
      m.cceIdsIsArray = true;
      if (!readIds(in, m.cceIds)) return "truncated ids";
    }
    if ((flags & kContentParts) && !readParts(in, m.parts)) return "truncated parts";
    if (!error) request.views.push_back(std::move(m));
  }

  std::uint32_t optionCount = 0;
  if (!in.word(optionCount)) return "truncated options";
  for (std::uint32_t i = 0; i < optionCount; ++i) {
    std::pair<U16, OptionValue> member;
    if (!in.string(member.first) || !in.option(member.second)) return "truncated options";
    request.options.members.push_back(std::move(member));
  }
  // The request proper ends here: what follows is the host's help, which maxInputBytes must not
  // weigh (a fuzzy-dedup request would otherwise count its texts twice).
  const std::size_t size = in.position();
  request.utf8Size = size;
  if (utf16 && measureUtf8Size) {
    request.utf8Size = static_cast<std::size_t>(static_cast<long long>(size) + in.utf8Delta());
  } else if (utf16) {
    // A unit is at most 3 bytes of WTF-8 against 2 of UTF-16, and padding adds at most 3 a string.
    request.utf8Size = size + size / 2 + 3 * in.stringCount();
    request.utf8SizeIsExact = false;
  }
  if (!in.atEnd()) {
    // Lower-cased texts for fuzzy dedup: word n, n x (word message index, string).
    std::uint32_t n = 0;
    if (!in.word(n)) return "truncated lowered texts";
    for (std::uint32_t k = 0; k < n; ++k) {
      std::uint32_t index = 0;
      U16 text;
      if (!in.word(index) || !in.string(text)) return "truncated lowered texts";
      if (index >= count) return "lowered text of no message";
      if (!error) request.views[index].lowered = std::move(text);
    }
  }
  if (!in.atEnd()) {
    // Tool-call texts for the default mode's billing estimate:
    // word n, n x (word message index, word calls, calls x (string name, string arguments)).
    std::uint32_t n = 0;
    if (!in.word(n)) return "truncated tool calls";
    for (std::uint32_t k = 0; k < n; ++k) {
      std::uint32_t index = 0, calls = 0;
      if (!in.word(index) || !in.word(calls)) return "truncated tool calls";
      if (index >= count) return "tool calls of no message";
      double tokens = 0;
      U16 name, arguments;
      for (std::uint32_t c = 0; c < calls; ++c) {
        if (!in.string(name) || !in.string(arguments)) return "truncated tool calls";
        tokens += toolCallTokens(name, arguments);
      }
      if (!error) request.views[index].toolCallTokens = tokens;
    }
  }
  if (!in.atEnd()) return "trailing bytes";
  return nullptr;
}

const char* decodeCompressHost(std::string_view bytes, BytesCompressHost& host) {
  if (bytes.empty()) return nullptr;
  ByteReader in(bytes);
  std::uint32_t flags = 0;
  if (!in.word(flags)) return "truncated host";
  host.summarizer = (flags & 1u) != 0;
  host.tokenCounter = (flags & 2u) != 0;
  host.validateOnly = (flags & 4u) != 0;
  if (host.validateOnly) return nullptr;  // nothing follows: the call only checks the request
  if (host.summarizer) {
    std::uint32_t n = 0;
    if (!in.word(n)) return "truncated summaries";
    for (std::uint32_t i = 0; i < n; ++i) {
      std::uint32_t given = 0;
      if (!in.word(given)) return "truncated summaries";
      if (given == 0) {
        host.summaries.emplace_back();
        continue;
      }
      U16 text;
      if (!in.string(text)) return "truncated summaries";
      host.summaries.emplace_back(std::move(text));
    }
  }
  if (host.tokenCounter) {
    std::uint32_t n = 0, m = 0;
    if (!in.word(n)) return "truncated counts";
    host.inputCounts.reserve(n < 65536 ? n : 65536);
    for (std::uint32_t i = 0; i < n; ++i) {
      double count = 0;
      if (!in.number(count)) return "truncated counts";
      host.inputCounts.push_back(count);
    }
    if (!in.word(m)) return "truncated counts";
    for (std::uint32_t i = 0; i < m; ++i) {
      U16 key;
      double count = 0;
      if (!in.string(key) || !in.number(count)) return "truncated counts";
      host.counts.emplace_back(std::move(key), count);
    }
  }
  if (!in.atEnd()) return "trailing bytes";
  return nullptr;
}

const char* decodeUncompress(std::string_view bytes, std::string_view store,
                             BytesUncompressRequest& request, std::optional<Error>& error) {
  ByteReader in(bytes);
  std::uint32_t magic = 0, count = 0;
  if (!in.word(magic) || magic != kUncompressBytesMagic) return "not an uncompress request";
  if (!in.word(count)) return "truncated";
  if (count == kNotAnArray) {
    error = invalid("uncompress(): messages must be an array", "/messages");
    return nullptr;
  }
  request.messageCount = count;
  for (std::uint32_t i = 0; i < count; ++i) {
    std::uint32_t flags = 0;
    if (!in.word(flags)) return "truncated message";
    Message m;
    if ((flags & kJsonNull) && !error) {
      error = messageError("uncompress", i, " must be an object", "");
    }
    if (flags & kIdsArray) {
      m.cceIdsIsArray = true;
      if (!readIds(in, m.cceIds)) return "truncated ids";
    }
    if (!error) request.views.push_back(std::move(m));
  }
  std::uint32_t storeIsValid = 0, recursive = 0;
  if (!in.word(storeIsValid) || !in.word(recursive)) return "truncated";
  if (!in.atEnd()) return "trailing bytes";
  // The JSON path's order: the store is checked before the messages' elements.
  if (storeIsValid != 1) {
    error = invalid("uncompress(): store must be a VerbatimMap or lookup function", "/store");
    return nullptr;
  }
  if (error) return nullptr;
  request.recursive = recursive != 0;

  ByteReader entries(store);
  std::uint32_t n = 0;
  if (!store.empty() && !entries.word(n)) return "truncated store";
  for (std::uint32_t i = 0; i < n; ++i) {
    U16 key;
    std::uint32_t flags = 0;
    if (!entries.string(key) || !entries.word(flags)) return "truncated store";
    Message m;
    if (flags & kIdsArray) {
      m.cceIdsIsArray = true;
      if (!readIds(entries, m.cceIds)) return "truncated store";
    }
    request.storeKeys.push_back(std::move(key));
    request.storeFound.push_back((flags & kFalsy) == 0);
    request.views.push_back(std::move(m));
  }
  if (!entries.atEnd()) return "trailing bytes";
  return nullptr;
}

// The one Result of a decoder's outcome: the request is malformed, refused, or read.
template <typename T>
Result<T> outcome(const char* problem, std::optional<Error>& error, T& request) {
  if (problem != nullptr) return malformed(problem);
  if (error) return std::move(*error);
  return std::move(request);
}

}  // namespace

Result<BytesCompressRequest> readCompressBytes(std::string_view bytes, bool measureUtf8Size,
                                               bool borrowContents) {
  BytesCompressRequest request;
  std::optional<Error> error;
  const char* problem = decodeCompress(bytes, measureUtf8Size, borrowContents, request, error);
  return outcome(problem, error, request);
}

Result<BytesCompressHost> readCompressHostBytes(std::string_view bytes) {
  BytesCompressHost host;
  std::optional<Error> none;
  return outcome(decodeCompressHost(bytes, host), none, host);
}

Result<BytesUncompressRequest> readUncompressBytes(std::string_view bytes,
                                                   std::string_view store) {
  BytesUncompressRequest request;
  std::optional<Error> error;
  const char* problem = decodeUncompress(bytes, store, request, error);
  return outcome(problem, error, request);
}

}  // namespace cce
