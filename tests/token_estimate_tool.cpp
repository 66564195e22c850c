// SPDX-License-Identifier: MIT
// Driver for scripts/measure-token-estimate.mjs: JSON string lines in, native estimates out.
//
// Each stdin line is one JSON string literal (JSON.stringify of a message's content). Each output
// line is the estimate; with --features it is followed by the feature counts. --names prints the
// feature names and exits. Not part of the test binary (its name does not end in _test.cpp).

#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "jscompat/string.h"
#include "token_estimate.h"

namespace {

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Decodes a JSON string literal as JSON.stringify writes it; lone surrogate escapes are kept.
bool decodeJsonString(std::string_view line, std::u16string& out) {
  out.clear();
  if (line.size() < 2 || line.front() != '"' || line.back() != '"') return false;
  std::string_view body = line.substr(1, line.size() - 2);
  std::size_t i = 0;
  while (i < body.size()) {
    std::size_t raw = body.find('\\', i);
    if (raw == std::string_view::npos) raw = body.size();
    out += cce::js::fromUtf8(body.substr(i, raw - i));
    i = raw;
    if (i >= body.size()) break;
    if (i + 1 >= body.size()) return false;
    char e = body[i + 1];
    i += 2;
    switch (e) {
      case '"': out += u'"'; break;
      case '\\': out += u'\\'; break;
      case '/': out += u'/'; break;
      case 'b': out += u'\b'; break;
      case 'f': out += u'\f'; break;
      case 'n': out += u'\n'; break;
      case 'r': out += u'\r'; break;
      case 't': out += u'\t'; break;
      case 'u': {
        if (i + 4 > body.size()) return false;
        int v = 0;
        for (int k = 0; k < 4; ++k) {
          int h = hexValue(body[i + k]);
          if (h < 0) return false;
          v = v * 16 + h;
        }
        out += static_cast<char16_t>(v);
        i += 4;
        break;
      }
      default: return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  bool features = false;
  for (int a = 1; a < argc; ++a) {
    if (std::strcmp(argv[a], "--names") == 0) {
      for (int k = 0; k < cce::detail::kFeatureCount; ++k) {
        std::printf("%s%s", k ? " " : "", cce::detail::tokenFeatureName(k));
      }
      std::printf("\n");
      return 0;
    }
    if (std::strcmp(argv[a], "--features") == 0) features = true;
  }
  std::string line;
  std::u16string text;
  char buffer[1 << 16];
  bool more = true;
  while (more) {
    line.clear();
    more = false;
    while (std::fgets(buffer, sizeof buffer, stdin) != nullptr) {
      line += buffer;
      if (!line.empty() && line.back() == '\n') {
        more = true;
        break;
      }
    }
    if (!line.empty() && line.back() == '\n') line.pop_back();
    if (line.empty()) continue;
    if (!decodeJsonString(line, text)) {
      std::fprintf(stderr, "token_estimate_tool: not a JSON string line\n");
      return 1;
    }
    std::printf("%.0f", cce::estimateTokens(text));
    if (features) {
      cce::detail::TokenFeatures f = cce::detail::tokenFeatures(text);
      for (std::uint64_t count : f) std::printf(" %llu", static_cast<unsigned long long>(count));
    }
    std::printf("\n");
  }
  return 0;
}
