// SPDX-License-Identifier: MIT
// The conformance runner (corpus cases and the scale session) and the CLI's shared tooling.
//
// Test tooling, not product code: it reads files, may shell out to `gzip -dc` for the scale
// session's compressed expected output (zlib stays out of the product), and is linked only into
// the `cce` CLI and the doctest binary.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "json/value.h"

namespace cce::cli {

enum class CaseStatus { Passed, Failed, Skipped };

struct CaseOutcome {
  std::string name;
  CaseStatus status = CaseStatus::Passed;
  std::vector<std::string> problems;  // Failed: one line per failing check (first difference only)
  std::string skipReason;             // Skipped: why (the group it is counted under)
  std::string note;                   // informational (timings, figures), shown with --verbose
};

struct ConformanceOptions {
  std::string filter;                              // run only cases whose name contains this
  std::function<void(const CaseOutcome&)> onCase;  // called after each case, for progress output
  /// Also run every case without hooks through compressJson/uncompressJson (the JSON API the CLI
  /// and the wasm module use) and compare those bytes too.
  bool checkJsonApi = true;
};

struct ConformanceReport {
  std::vector<CaseOutcome> cases;  // in file-name order
  std::size_t passed = 0;
  std::size_t failed = 0;
  std::size_t skipped = 0;
  std::vector<std::pair<std::string, std::size_t>> skippedBy;  // reason -> count, first-seen order
  std::string error;  // a problem with the directory itself (missing, no cases)
};

/// Runs every `DIR/cases/*.json` (or `DIR/*.json` when there is no `cases/`) in sorted order, or
/// the scale session when DIR holds `scale-conversation.json` and `scale-results.json`.
ConformanceReport runConformance(const std::string& dir, const ConformanceOptions& options);

/// `cce conformance ...`: prints failures with their first difference, the skipped line, and last
/// `N passed, M failed`. Returns the process exit code.
int conformanceMain(const std::vector<std::string>& args);

/// `cce bench ...`. Returns the process exit code.
int benchMain(const std::vector<std::string>& args, const char* argv0);

// ---- tooling shared by the CLI commands and the golden test -------------------------------------

bool readFile(const std::string& path, std::string& out);
bool isDirectory(const std::string& path);
bool isRegularFile(const std::string& path);

/// Hex SHA-256 of bytes (FIPS 180-4).
std::string sha256Hex(std::string_view bytes);

/// The parts of a `{"ok":...}` envelope written by compressJson/uncompressJson, as slices of it.
struct Envelope {
  bool ok = false;
  std::string_view output;  // the raw JSON text of "output" (empty when absent)
  std::string_view error;   // the raw JSON text of "error" (empty when absent)
};

/// Scans the top level of an envelope without re-parsing the (possibly large) output. False when
/// the text is not an object with a boolean "ok".
bool splitEnvelope(std::string_view envelope, Envelope& out);

/// The first difference between two JSON values as "path: expected X, got Y" (JSON pointer path;
/// array items that carry an `id` are annotated with it), or "" when they are equal as JS values
/// in JS key order.
std::string firstJsonDiff(const json::Value& expected, const json::Value& actual,
                          const std::string& rootPath = "");

/// The test data unpacked from tests/corpus (`build/testdata`, by scripts/testdata.mjs): tried
/// relative to the current directory and to the executable. "" when not found.
std::string findTestDataDir(const char* argv0);

}  // namespace cce::cli
