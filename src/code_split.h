// SPDX-License-Identifier: MIT
// Spec §4.1: split a message containing ``` into prose and fenced code.
//
// Fences follow the multiline pattern of §4.1 (0-3 spaces, ```, rest of line, \n, lazy body, \n,
// \s*, ```), matched left to right without overlap. Prose between/after fences is trimmed and kept
// when non-empty. A text with ``` but no complete fence is one prose segment.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cce {

struct CodeSplit {
  std::u16string prose;                // trimmed prose segments joined with " "
  std::size_t proseLength = 0;         // sum of the trimmed segments' lengths (no join spaces)
  std::vector<std::u16string> fences;  // code segments, verbatim, in order
};

CodeSplit splitCodeAndProse(std::u16string_view text);

/// splitCodeAndProse(text).proseLength without building the prose and copying the fences (the
/// classifier's test, §2.1 rule 7).
std::size_t codeSplitProseLength(std::u16string_view text);

}  // namespace cce
