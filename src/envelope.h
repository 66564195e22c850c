// SPDX-License-Identifier: MIT
// The JSON envelope every entry point answers with: {"ok":true,"<field>":...} or {"ok":false,"error":...}.
#pragma once

#include <string>

#include "json/value.h"
#include "status.h"

namespace cce {

/// {"ok":false,"error":{"code":"<ErrorCode name>","message":"...","path":"..."}}
std::string errorEnvelope(const Error& error);

/// {"ok":true,"<field>":<payload>} — field is "output", "plan" or "pending".
std::string okEnvelope(const char* field, const json::Value& payload);

}  // namespace cce
