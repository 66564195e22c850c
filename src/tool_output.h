// SPDX-License-Identifier: MIT
// Spec §6: structured tool output (grep hits, test logs, bullet lists, key: value dumps).
//
// Detection needs >= 6 non-empty lines, a newline density of at least 1/80 and more than half of the
// non-empty lines structural. The summary lists file paths and status lines, or falls back to
// "first three | ... | last (k lines)"; both are cut to budget-3 + "..." when too long.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cce {

bool isStructuredOutput(std::u16string_view text);
std::u16string summarizeStructured(std::u16string_view text, std::size_t budget);

}  // namespace cce
