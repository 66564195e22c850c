// SPDX-License-Identifier: MIT
// Spec §7: entity extraction for the " | entities: ..." suffix.
//
// In order: proper-noun phrases (minus common starters), PascalCase, camelCase, snake_case,
// vowelless words (lower-cased), numbers with units; an insertion-ordered set, first `limit` kept.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cce {

std::vector<std::u16string> extractEntities(std::u16string_view text, std::size_t limit = 10);

namespace detail {
/// extractEntities with the word-by-word walk that builds without SSE2 (and wasm SIMD) use; the
/// SIMD builds walk 64-unit blocks of word lanes. For the tests that hold the two together.
std::vector<std::u16string> extractEntitiesByWords(std::u16string_view text,
                                                   std::size_t limit = 10);
/// The word walk with the upper-case walk handing every word it finds on to the lists, also those
/// that can no longer enter (the SIMD builds pass over them). For the tests.
std::vector<std::u16string> extractEntitiesPassingNone(std::u16string_view text,
                                                       std::size_t limit = 10);
}  // namespace detail

}  // namespace cce
