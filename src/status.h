// SPDX-License-Identifier: MIT
// Errors as values: one error vocabulary shared by the core, the JSON envelope and the TS layer.
#pragma once

#include <memory>
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

/// An InvalidInput error. Out of line (status.cpp): every request reader and validator builds
/// these at many checks, and inlined each check carried its own copy of the string moves.
Error invalid(std::string message, std::string path);
/// The same of two literals: a call passes two pointers, where the form above built and freed two
/// strings at each site.
Error invalid(const char* message, const char* path);

/// What Result<T>::error() gives for a successful result.
const Error& noError();

/// Result<T>: a value or an Error. The core never throws. The error lives on the heap: results
/// are returned and passed up at every check, and carrying two strings inline made each of those
/// moves (and each default-constructed empty error) cost code at every call site.
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : error_(new Error(std::move(error))) {}  // NOLINT
  Result(const Result& other)
      : value_(other.value_), error_(other.error_ ? new Error(*other.error_) : nullptr) {}
  Result(Result&&) noexcept = default;
  Result& operator=(const Result& other) {
    if (this != &other) *this = Result(other);
    return *this;
  }
  Result& operator=(Result&&) noexcept = default;

  bool ok() const { return !error_; }
  explicit operator bool() const { return !error_; }
  T& value() { return value_; }
  const T& value() const { return value_; }
  T* operator->() { return &value_; }
  const T* operator->() const { return &value_; }
  /// The error of a failed result (an empty Internal error for a successful one).
  const Error& error() const { return error_ ? *error_ : noError(); }

 private:
  T value_{};
  std::unique_ptr<Error> error_;
};

}  // namespace cce
