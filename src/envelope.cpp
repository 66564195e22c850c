// SPDX-License-Identifier: MIT
// The JSON envelope shared by compressJson, uncompressJson, contextJson and compactionJson.
#include "envelope.h"

#include "jscompat/json_writer.h"
#include "jscompat/string.h"

namespace cce {

std::string errorEnvelope(const Error& error) {
  std::string out = "{\"ok\":false,\"error\":{\"code\":\"";
  out += errorCodeName(error.code);
  out += "\",\"message\":";
  js::writeJsonString(js::fromUtf8(error.message), out);
  out += ",\"path\":";
  js::writeJsonString(js::fromUtf8(error.path), out);
  out += "}}";
  return out;
}

std::string okEnvelope(const char* field, const json::Value& payload) {
  std::string out = "{\"ok\":true,\"";
  out += field;
  out += "\":";
  js::writeJson(payload, out);
  out += "}";
  return out;
}

}  // namespace cce
