// SPDX-License-Identifier: MIT
// Spec §11: one expansion pass, then (recursive) at most 10 more while they still make progress.
#include "uncompress.h"

#include <algorithm>
#include <cstdint>

namespace cce {

namespace {

constexpr int kMaxExtraPasses = 10;

bool hasOriginal(const Message& m) { return m.cceIdsIsArray && !m.cceIds.empty(); }

struct Pass {
  std::vector<std::size_t> messages;
  std::size_t expanded = 0;
  std::size_t passthrough = 0;
  bool overflow = false;
};

// `limit`: the most messages the pass may return; past it the pass stops and `overflow` is set.
Pass expandOnce(const std::vector<std::size_t>& messages, const UncompressHost& host,
                std::vector<Scalar>& missing, std::size_t limit = SIZE_MAX) {
  Pass pass;
  pass.messages.reserve(messages.size());
  for (std::size_t handle : messages) {
    const Message& m = host.describe(handle);
    if (!hasOriginal(m)) {
      pass.messages.push_back(handle);
      ++pass.passthrough;
      continue;
    }
    std::vector<std::size_t> found;
    for (const Scalar& id : m.cceIds) {
      if (std::optional<std::size_t> original = host.lookup(id)) {
        found.push_back(*original);
      } else {
        missing.push_back(id);
      }
    }
    if (found.empty()) {
      pass.messages.push_back(handle);  // the summary stays as the best available fallback
      ++pass.passthrough;
    } else {
      pass.messages.insert(pass.messages.end(), found.begin(), found.end());
      ++pass.expanded;
    }
    if (pass.messages.size() > limit) {
      pass.overflow = true;
      break;
    }
  }
  return pass;
}

bool anyHasOriginal(const std::vector<std::size_t>& messages, const UncompressHost& host) {
  for (std::size_t handle : messages) {
    if (hasOriginal(host.describe(handle))) return true;
  }
  return false;
}

}  // namespace

UncompressResult uncompress(const std::vector<std::size_t>& messages, const UncompressHost& host,
                            bool recursive) {
  UncompressResult result;
  Pass pass = expandOnce(messages, host, result.missingIds);
  result.messagesExpanded = pass.expanded;
  result.messagesPassthrough = pass.passthrough;
  result.messages = std::move(pass.messages);
  if (!recursive) return result;

  // The first extra pass runs whenever originals remain; later ones only while the previous extra
  // pass expanded something (spec §11). Store entries that name each other multiply the messages
  // with every pass: past the cap, recursion stops with tooLarge instead of filling the memory.
  const std::size_t limit = std::max(kMaxRecursiveMessages, result.messages.size());
  for (int extra = 0; extra < kMaxExtraPasses; ++extra) {
    if (extra > 0 && pass.expanded == 0) break;
    if (!anyHasOriginal(result.messages, host)) break;
    pass = expandOnce(result.messages, host, result.missingIds, limit);
    if (pass.overflow) {
      result.tooLarge = true;
      return result;
    }
    result.messagesExpanded += pass.expanded;
    result.messagesPassthrough = pass.passthrough;
    result.messages = std::move(pass.messages);
  }
  return result;
}

}  // namespace cce
