// SPDX-License-Identifier: MIT
// Names of the error codes: the single source the wire format and the TS layer are checked against.
#include "status.h"

namespace cce {

const char* errorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::InvalidJson: return "InvalidJson";
    case ErrorCode::InvalidInput: return "InvalidInput";
    case ErrorCode::InputTooLarge: return "InputTooLarge";
    case ErrorCode::BudgetTooSmall: return "BudgetTooSmall";
    case ErrorCode::CallbackFailed: return "CallbackFailed";
    case ErrorCode::Timeout: return "Timeout";
    case ErrorCode::Internal: return "Internal";
  }
  return "Internal";
}

Error invalid(std::string message, std::string path) {
  return Error{ErrorCode::InvalidInput, std::move(message), std::move(path)};
}

Error invalid(const char* message, const char* path) {
  return Error{ErrorCode::InvalidInput, message, path};
}

const Error& noError() {
  static const Error none;
  return none;
}

std::vector<ErrorCode> allErrorCodes() {
  return {ErrorCode::InvalidJson, ErrorCode::InvalidInput, ErrorCode::InputTooLarge,
          ErrorCode::BudgetTooSmall, ErrorCode::CallbackFailed, ErrorCode::Timeout,
          ErrorCode::Internal};
}

}  // namespace cce
