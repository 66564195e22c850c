// SPDX-License-Identifier: MIT
// Projection benchmark over real transcripts (for `cce bench`; the caller reads the files).
//
// Input: the text of files in the ../shared/data/real format (a JSON array of conversations, each
// an array of OpenAI-style messages). Per file and per conversation: reading it as a conversation
// document (a plain reading; fromOpenAI with its round-trip records is the JS layer's, timed by
// scripts/bench.mjs), a `default` compaction and a `heavy` one (both keepLast 3, skipped when that
// leaves nothing to compact), projections without overlays, with default, and with heavy stacked
// on default, and the whole `project` JSON call (parse, project, write).
// Times are process CPU milliseconds (std::clock, so that a loaded machine does not inflate them),
// the median over `repeats` runs of the per-file totals.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace cce::compaction {

struct CompactionBenchInput {
  std::string name;
  std::string json;
};

struct CompactionBenchRow {
  std::string name;
  std::string error;  // non-empty: the file could not be read as transcripts
  std::size_t conversations = 0;
  std::size_t messages = 0;
  std::size_t turns = 0;
  std::size_t events = 0;
  double readMs = 0;  // building and reading the documents
  double compactMs = 0;  // creating both compactions (the heavy one summarizes)
  double projectRawMs = 0;
  double projectDefaultMs = 0;
  double projectHeavyMs = 0;
  double projectJsonMs = 0;  // compactionJson({"op":"project",...})
  double tokensRaw = 0;
  double tokensDefault = 0;
  double tokensHeavy = 0;
};

std::vector<CompactionBenchRow> benchCompaction(const std::vector<CompactionBenchInput>& files,
                                                int repeats);

/// A plain-text table of the rows (one line per file plus a header).
std::string formatCompactionBench(const std::vector<CompactionBenchRow>& rows);

}  // namespace cce::compaction
