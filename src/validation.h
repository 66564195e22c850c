// SPDX-License-Identifier: MIT
// Strict request validation for the default (safe) mode, and the request size limit.
//
// The reference accepts shapes that chat APIs reject or that break the round trip (numeric or
// repeated ids, content that is a number, negative windows). In the default mode those become
// typed errors with a JSON pointer; under `compat: "cce-1.0"` the reference's acceptance stays as
// the corpus pins it, so callers apply validateCompressRequest only when compat is Safe.
// The size limit is a resource guard and applies in both modes, before the request is parsed.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "json/value.h"
#include "status.h"
#include "types.h"

namespace cce {

/// Default for `options.maxInputBytes`: requests larger than this (UTF-8 bytes of the request
/// text) are rejected with InputTooLarge before parsing. `maxInputBytes: 0` disables the limit.
constexpr double kDefaultMaxInputBytes = 64.0 * 1024 * 1024;

/// Checks a compress request in the default mode, after parsing accepted it: parsing reports the
/// reference's own TypeErrors (same texts in both modes), then these checks run in message order
/// (string ids, unique ids, content a string, an array of parts, or absent beside tool calls),
/// then the options, as parseCompressOptions read them.
Result<bool> validateCompressRequest(const std::vector<Message>& views,
                                     const CompressOptions& options);

/// The value of `/options/maxInputBytes` in a request text, found without building a document
/// (linear, no allocation proportional to the input). nullopt when absent, null, not a number, or
/// the text is not a JSON object; the last occurrence wins, as with JSON.parse.
std::optional<double> scanMaxInputBytes(std::string_view requestText);

/// InputTooLarge when `requestText` is longer than `/options/maxInputBytes` bytes (0: no limit;
/// absent, null or invalid: kDefaultMaxInputBytes, and validation reports an invalid value).
/// Meant to run first thing in compressJson / uncompressJson, before parseJson.
Result<bool> checkRequestSize(std::string_view requestText);

/// The same limit for a request that arrives in another form (the wasm boundary's bytes):
/// `size` bytes against `options.maxInputBytes`.
Result<bool> checkRequestSize(std::size_t size, const CompressOptions& options);

}  // namespace cce
