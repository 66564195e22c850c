// SPDX-License-Identifier: MIT
// Errors as values: one error vocabulary shared by the core, the JSON envelope and the TS layer.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace cce {

/// The enumerator name is the wire string is the TypeScript literal (see errorCodeName()).
enum class ErrorCode {
  InvalidJson,     // the request text is not JSON
  InvalidInput,    // JSON, but not a valid request (messages not an array, bad option type, ...)
  InputTooLarge,   // over a documented size or depth limit
  BudgetTooSmall,  // reserved for budget modes that refuse an impossible budget
  CallbackFailed,  // a host callback (token counter, store lookup) threw or answered nonsense
  Timeout,         // a host callback (the summarizer) did not answer in time
  Internal,        // a bug: an invariant of the engine did not hold
};

const char* errorCodeName(ErrorCode code);
std::vector<ErrorCode> allErrorCodes();

struct Error {
  ErrorCode code = ErrorCode::Internal;
  std::string message;  // UTF-8, human readable; matches the reference's TypeError text where one exists
  std::string path;     // JSON pointer into the request, e.g. "/messages/3/id"; may be empty
};

/// Result<T>: a value or an Error. The core never throws.
template <typename T>
class Result {
 public:
  Result(T value) : ok_(true), value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : ok_(false), error_(std::move(error)) {}  // NOLINT

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  T& value() { return value_; }
  const T& value() const { return value_; }
  T* operator->() { return &value_; }
  const T* operator->() const { return &value_; }
  const Error& error() const { return error_; }

 private:
  bool ok_;
  T value_{};
  Error error_{};
};

}  // namespace cce
