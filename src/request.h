// SPDX-License-Identifier: MIT
// The JSON face of the engine: request validation, message views, and materialising result plans.
//
// Validation follows the reference's TypeErrors (spec §1.3) with its exact messages, plus typed
// errors (with a JSON pointer) for what the reference would misbehave on: options of the wrong
// type, non-finite numbers, content that JSON cannot carry.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "answer_writer.h"
#include "json/value.h"
#include "status.h"
#include "types.h"
#include "uncompress.h"

namespace cce {

/// The engine's view of one message object.
Message describeMessage(const json::Value& object);

/// Scalar form of any JSON value (for ids and roles). `missing` for a null pointer.
Scalar toScalar(const json::Value* value);

/// JavaScript `String(value)` for a JSON value (property-key conversion of ids).
std::u16string jsString(const json::Value& value);

struct ParsedMessages {
  std::vector<json::ValuePtr> objects;
  std::vector<Message> views;
};

/// Checks `messages` as compress() does (array; objects; non-null ids) and builds the views.
Result<ParsedMessages> parseMessages(const json::Value* messages, const char* apiName);

/// Like parseMessages, but moves the message objects out of `messages` instead of copying them
/// (for a request document that is no longer needed). On error nothing has been moved.
Result<ParsedMessages> consumeMessages(json::Value* messages, const char* apiName);

/// One option as parseCompressOptions reads it: its JSON kind and, for the kinds it reads, its
/// value; of an array (options.preserve) only which items are strings, and their text.
struct OptionValue {
  json::Kind kind = json::Kind::Null;
  bool boolean = false;
  double number = 0;
  U16 string;
  std::vector<std::optional<U16>> items;  // Array: each item's text when it is a string
};

/// The members of a request's options object, in order (a repeated key: the last one counts). The
/// bytes request arrives as this, so the wasm module needs no JSON document model; JSON options
/// are reduced to it.
struct OptionList {
  std::vector<std::pair<U16, OptionValue>> members;
  const OptionValue* find(std::u16string_view key) const;
};

/// Reads options into `options` (hooks untouched). Unknown keys are ignored, as in JS.
Result<bool> parseCompressOptions(const OptionList& options, CompressOptions& out);

/// The same for JSON options: nullptr or null is no options; anything but an object an error.
Result<bool> parseCompressOptions(const json::Value* options, CompressOptions& out);

/// The fields of the `compression` object of a compress() result, in the key order of spec §1.5;
/// counts that are zero and optional in the reference are left out, as it leaves them out. The
/// one description behind the JSON result (compressionValue) and the wasm plan (cce.cpp).
struct CompressionFields {
  struct Field {
    AnswerKey key;
    double value;
  };
  Field fields[9];
  std::size_t count = 0;
};
CompressionFields compressionFields(const CompressionStats& stats);

/// The `compression` object as a JSON value.
json::Value compressionValue(const CompressionStats& stats);

/// Builds the JSON result object of compress() from its plan (key orders of spec §1.5/§1.6).
json::Value materializeCompressResult(const CompressResult& result,
                                      const std::vector<json::ValuePtr>& inputs,
                                      const std::vector<Message>& views);

/// An array content whose text is replaced (safe mode, multimodal messages): the first text part
/// (`{"type":"text","text":...}`) takes `text` and keeps its other fields, later text parts are
/// dropped, every other part stays verbatim in its place. Without a text part, one is put first.
json::Value partsWithText(const json::Value& parts, const std::u16string& text);

/// Builds one output message object from the plan.
json::Value materializeMessage(const OutputMessage& out, const std::vector<json::ValuePtr>& inputs,
                               const std::vector<Message>& views);

}  // namespace cce
