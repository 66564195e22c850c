// SPDX-License-Identifier: MIT
// Binary requests of the wasm boundary (docs/boundary.md "Bytes requests"): views without JSON.
//
// The JS layer writes what the engine reads of each message straight into wasm memory: flags,
// ids and roles as scalars, and the content as raw WTF-8. Decoding it costs one UTF-8 -> UTF-16
// widening per string, where a JSON request costs JSON.stringify in JS plus a full parse here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "json/value.h"
#include "request.h"
#include "status.h"
#include "types.h"

namespace cce {

/// First word of a compress request ("CCE1" little-endian) and of an uncompress request ("CCU1").
constexpr std::uint32_t kCompressBytesMagic = 0x31454343u;
/// A compress request whose strings are UTF-16 ("CCE2"): what the Node entry sends, since Node
/// copies a string's units out faster than it encodes UTF-8, and the engine then copies instead
/// of widening.
constexpr std::uint32_t kCompressBytesUtf16Magic = 0x32454343u;
/// Whether this build reads "CCE2" requests. The wasm size build (browsers, which send "CCE1")
/// leaves the reader out: CCE_NO_UTF16_REQUESTS, set by wasm/CMakeLists.txt.
#ifdef CCE_NO_UTF16_REQUESTS
constexpr bool kUtf16RequestsSupported = false;
#else
constexpr bool kUtf16RequestsSupported = true;
#endif
constexpr std::uint32_t kUncompressBytesMagic = 0x31554343u;
/// The message count of a request whose `messages` is not an array.
constexpr std::uint32_t kNotAnArray = 0xFFFFFFFFu;

/// Sequential reader of little-endian words, doubles, WTF-8 strings (length word, bytes, zero
/// padding to 4), scalars and option values. Every read checks bounds: a short or malformed buffer
/// makes the read fail, never read past the end.
class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : data_(bytes) {}

  /// Strings from here on are UTF-16: a length word in units, the units, zero padding to 4.
  void useUtf16Strings() { utf16_ = true; }
  /// Also add up what the UTF-16 strings read from here on weigh as WTF-8 (the form a UTF-8
  /// request carries them in), padding included, minus what they weigh as UTF-16.
  void measureUtf8() { measureUtf8_ = true; }
  /// That difference, and how many strings were read.
  long long utf8Delta() const { return utf8Delta_; }
  std::size_t stringCount() const { return stringCount_; }

  bool word(std::uint32_t& out);
  bool number(double& out);
  bool string(std::u16string& out);
  /// A message content: as string(), or with borrowStrings() and UTF-16 units at an aligned
  /// address, a view of the units where they are (no copy).
  bool content(Content& out);
  /// Contents read from here on view the request bytes, which the caller keeps alive as long as
  /// the messages read (compressBytes: until it returns).
  void borrowStrings() { borrow_ = true; }
  /// kind word (0 missing, 1 null, 2 boolean, 3 number, 4 string, 5 other), then the text
  /// (JavaScript `String(value)`) for kinds 2-5.
  bool scalar(Scalar& out);
  /// tag word (0 null, 1 false, 2 true, 3 number, 4 string, 5 array, 6 other object), then the
  /// payload. Of an array's items only strings are kept (see OptionValue); nested arrays are read
  /// past, at most `depth` levels deep.
  bool option(OptionValue& out, int depth = 32);
  bool atEnd() const { return position_ == data_.size(); }
  std::size_t position() const { return position_; }

 private:
  std::string_view data_;
  std::size_t position_ = 0;
  bool utf16_ = false;
  bool borrow_ = false;
  bool measureUtf8_ = false;
  long long utf8Delta_ = 0;
  std::size_t stringCount_ = 0;
};

/// A decoded compress request: the views, and the options as parseCompressOptions reads them.
struct BytesCompressRequest {
  std::vector<Message> views;
  OptionList options;
  /// The request's size as a UTF-8 request ("CCE1") would carry it: what options.maxInputBytes
  /// limits, whichever string encoding the host chose. Exact for a UTF-8 request and when
  /// readCompressBytes was asked to measure; otherwise an upper bound (see utf8SizeIsExact).
  std::size_t utf8Size = 0;
  bool utf8SizeIsExact = true;
};

/// Reads the request buffer. Errors are the reference's validation errors with the same text as
/// the JSON path (first offending message wins), or InvalidInput for a malformed buffer. A UTF-16
/// request's UTF-8 size is measured only when `measureUtf8Size` (a pass over every string);
/// without it utf8Size is the bound 1.5 × size + 3 bytes of padding per string.
/// With `borrowContents`, the message contents of a UTF-16 request are views of `bytes` (see
/// Content), which must then outlive the result.
Result<BytesCompressRequest> readCompressBytes(std::string_view bytes, bool measureUtf8Size = false,
                                               bool borrowContents = false);

/// The host's answers of a compress request (the second buffer, rewritten on every round trip).
struct BytesCompressHost {
  /// Host flag 4: answer {"ok":true,"valid":true} once the request passed every check, without
  /// compressing (lets the host report bad input before it calls a token counter or summarizer).
  bool validateOnly = false;
  bool summarizer = false;
  std::vector<std::optional<std::u16string>> summaries;  // nullopt: the summarizer failed
  bool tokenCounter = false;
  std::vector<double> inputCounts;
  std::vector<std::pair<U16, double>> counts;  // as sent: a later count of a key replaces it
};
Result<BytesCompressHost> readCompressHostBytes(std::string_view bytes);

/// A decoded uncompress request. Views [0, messageCount) are the messages; the store entries the
/// host has answered follow (handle messageCount + i is storeKeys[i]).
struct BytesUncompressRequest {
  std::vector<Message> views;
  std::size_t messageCount = 0;
  std::vector<std::u16string> storeKeys;
  std::vector<char> storeFound;  // false: the lookup answered a falsy value (missing)
  bool recursive = false;
};
Result<BytesUncompressRequest> readUncompressBytes(std::string_view bytes, std::string_view store);

}  // namespace cce
