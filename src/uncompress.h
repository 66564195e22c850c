// SPDX-License-Identifier: MIT
// Spec §11: restore originals from a verbatim store, optionally recursively (at most 10 extra passes).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "callback.h"
#include "types.h"

namespace cce {

/// Messages are referred to by handles the host owns: the core never copies message objects, so
/// "originals are returned by reference" holds for every host.
struct UncompressHost {
  /// The engine's view of the message behind a handle.
  Callback<const Message&(std::size_t handle)> describe;
  /// The store: handle of the message stored under `id`, or nullopt when it is missing (falsy).
  Callback<std::optional<std::size_t>(const Scalar& id)> lookup;
};

/// The most messages a recursive uncompress returns (or as many as its first pass, if more):
/// past it the result is an InputTooLarge error, never a silently shortened list.
constexpr std::size_t kMaxRecursiveMessages = 100000;

struct UncompressResult {
  std::vector<std::size_t> messages;  // handles
  std::size_t messagesExpanded = 0;
  std::size_t messagesPassthrough = 0;
  std::vector<Scalar> missingIds;
  /// A recursive pass went past kMaxRecursiveMessages; `messages` is incomplete.
  bool tooLarge = false;
};

UncompressResult uncompress(const std::vector<std::size_t>& messages, const UncompressHost& host,
                            bool recursive);

}  // namespace cce
