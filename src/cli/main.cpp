// SPDX-License-Identifier: MIT
// The native `cce` CLI: compress / uncompress over stdin-stdout JSON, conformance runs, benchmarks.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cce.h"
#include "cli/conformance.h"

namespace {

constexpr const char* kUsage =
    "usage: cce <command> [args]\n"
    "\n"
    "  compress [FILE]      read {\"messages\":[...],\"options\":{...}} (stdin by default) and\n"
    "                       write the CompressResult JSON to stdout, byte for byte what\n"
    "                       JSON.stringify(result) prints (no trailing newline)\n"
    "  uncompress [FILE]    read {\"messages\":[...],\"store\":{...},\n"
    "                       \"options\":{\"recursive\":b}}"
    " and write the UncompressResult JSON\n"
    "  conformance DIR [--filter SUBSTR] [--verbose] [--no-json-api]\n"
    "                       run DIR/cases/*.json (the oracle corpus format), or the scale\n"
    "                       session when DIR holds scale-conversation.json; the last line is\n"
    "                       'N passed, M failed'. The scale mode reads\n"
    "                       expected-v1-defaults.json, or runs `gzip -dc` (popen) on its .gz\n"
    "  bench [--runs N] [--shared DIR]\n"
    "                       median timings for the scale session and the bench scenarios\n"
    "                       (DIR defaults to build/testdata, unpacked from tests/corpus)\n"
    "  --version            print the library version\n"
    "  --help               print this text\n"
    "\n"
    "compress/uncompress errors: the error envelope {\"ok\":false,\"error\":{...}} goes to stderr\n"
    "and the exit status is 2.\n";

bool readAll(FILE* f, std::string& out) {
  char buf[1 << 16];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  return std::ferror(f) == 0;
}

bool writeAll(FILE* f, const char* data, std::size_t size) {
  return std::fwrite(data, 1, size, f) == size && std::fflush(f) == 0;
}

// compress / uncompress: one request in, the envelope's output out (or the envelope on stderr).
int runJsonCommand(const char* name, std::string (*call)(std::string_view),
                   const std::vector<std::string>& args) {
  if (args.size() > 1) {
    std::fprintf(stderr, "cce %s: expected at most one input file\n%s", name, kUsage);
    return 2;
  }
  std::string request;
  if (args.empty() || args[0] == "-") {
    if (!readAll(stdin, request)) {
      std::fprintf(stderr, "cce %s: cannot read stdin\n", name);
      return 2;
    }
  } else if (!cce::cli::readFile(args[0], request)) {
    std::fprintf(stderr, "cce %s: cannot read %s\n", name, args[0].c_str());
    return 2;
  }
  std::string envelope = call(request);
  cce::cli::Envelope env;
  if (!cce::cli::splitEnvelope(envelope, env) || !env.ok || env.output.empty()) {
    // Not ok, or ok without output (e.g. pending summaries, which a CLI cannot supply).
    writeAll(stderr, envelope.data(), envelope.size());
    writeAll(stderr, "\n", 1);
    return 2;
  }
  if (!writeAll(stdout, env.output.data(), env.output.size())) {
    std::fprintf(stderr, "cce %s: cannot write stdout\n", name);
    return 2;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  std::string command = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  if (command == "--help" || command == "-h" || command == "help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (command == "--version" || command == "-V") {
    std::printf("cce %s\n", cce::version());
    return 0;
  }
  if (command == "compress") return runJsonCommand("compress", cce::compressJson, args);
  if (command == "uncompress") return runJsonCommand("uncompress", cce::uncompressJson, args);
  if (command == "conformance") return cce::cli::conformanceMain(args);
  if (command == "bench") return cce::cli::benchMain(args, argv[0]);
  std::fprintf(stderr, "cce: unknown command '%s'\n%s", command.c_str(), kUsage);
  return 2;
}
