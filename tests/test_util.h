// SPDX-License-Identifier: MIT
// Helpers for corpus-driven tests: where the corpora live, CCE_GOLDEN_FILTER, one CHECK per case.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "cli/conformance.h"

namespace cce::test {

/// The oracle corpus, unpacked from tests/corpus (`build/testdata/conformance/public`, fixed by CMake).
inline std::string publicCorpusDir() {
#ifdef CCE_TESTDATA_DIR
  return std::string(CCE_TESTDATA_DIR) + "/conformance/public";
#else
  return "build/testdata/conformance/public";
#endif
}

/// The project's own golden cases (`tests/golden`, same case format as the oracle corpus).
inline std::string projectGoldenDir() {
#ifdef CCE_SOURCE_DIR
  return std::string(CCE_SOURCE_DIR) + "/tests/golden";
#else
  return "tests/golden";
#endif
}

/// `CCE_GOLDEN_FILTER=<substring>` runs only the cases whose name contains it.
inline std::string goldenFilter() {
  const char* filter = std::getenv("CCE_GOLDEN_FILTER");
  return filter != nullptr ? std::string(filter) : std::string();
}

/// Runs a corpus directory and turns each case into one CHECK (skipped cases are not checked).
/// Returns the number of cases that ran (passed + failed).
inline std::size_t checkConformanceDir(const std::string& dir) {
  cli::ConformanceOptions options;
  options.filter = goldenFilter();
  cli::ConformanceReport report = cli::runConformance(dir, options);
  INFO("corpus: " << dir);
  REQUIRE_MESSAGE(report.error.empty(), report.error);
  for (const cli::CaseOutcome& oc : report.cases) {
    if (oc.status == cli::CaseStatus::Skipped) continue;
    const std::string& name = oc.name;
    std::string problems;
    for (const std::string& p : oc.problems) problems += "\n  " + p;
    CAPTURE(name);
    CHECK_MESSAGE(oc.status == cli::CaseStatus::Passed, problems);
  }
  MESSAGE(dir << ": " << report.passed << " passed, " << report.failed << " failed, "
              << report.skipped << " skipped");
  return report.passed + report.failed;
}

}  // namespace cce::test
