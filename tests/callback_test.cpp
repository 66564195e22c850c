// SPDX-License-Identifier: MIT
// Tests for Callback: std::function's behaviour where the engine relies on it (empty test, calls,
// copies that own their functor, moves that empty the source, references returned as references),
// for small functors stored inline and for large ones on the heap.
#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "callback.h"

namespace {

// A functor too large and not trivially copyable for inline storage; counts live instances so
// the tests can see every copy destroyed exactly once.
struct Tracked {
  static int alive;
  std::string prefix;
  std::vector<int> padding = std::vector<int>(8, 0);
  explicit Tracked(std::string p) : prefix(std::move(p)) { ++alive; }
  Tracked(const Tracked& other) : prefix(other.prefix), padding(other.padding) { ++alive; }
  Tracked(Tracked&& other) noexcept : prefix(std::move(other.prefix)) { ++alive; }
  ~Tracked() { --alive; }
  std::string operator()(const std::string& s) const { return prefix + s; }
};
int Tracked::alive = 0;

}  // namespace

TEST_CASE("Callback: empty until given a functor") {
  cce::Callback<int(int)> empty;
  CHECK_FALSE(empty);
  cce::Callback<int(int)> twice = [](int x) { return 2 * x; };
  CHECK(twice);
  CHECK(twice(21) == 42);
}

TEST_CASE("Callback: a lambda capturing references is called on the caller's state") {
  std::vector<int> seen;
  int base = 10;
  cce::Callback<int(int)> record = [&seen, &base](int x) {
    seen.push_back(x);
    return base + x;
  };
  CHECK(record(1) == 11);
  base = 20;
  cce::Callback<int(int)> copy = record;
  CHECK(copy(2) == 22);
  CHECK(seen == std::vector<int>{1, 2});
}

TEST_CASE("Callback: references come back as references") {
  std::vector<std::string> items = {"a", "b"};
  cce::Callback<const std::string&(std::size_t)> at = [&items](std::size_t i) -> const std::string& {
    return items[i];
  };
  CHECK(&at(1) == &items[1]);
}

TEST_CASE("Callback: a large functor is owned, copied and destroyed with its callbacks") {
  REQUIRE(Tracked::alive == 0);
  {
    cce::Callback<std::string(const std::string&)> hello = Tracked("hello ");
    CHECK(Tracked::alive == 1);
    CHECK(hello("world") == "hello world");

    cce::Callback<std::string(const std::string&)> copy = hello;
    CHECK(Tracked::alive == 2);  // a copy of its own
    CHECK(copy("there") == "hello there");

    cce::Callback<std::string(const std::string&)> moved = std::move(copy);
    CHECK(Tracked::alive == 2);  // moved, not copied
    CHECK_FALSE(copy);           // NOLINT(bugprone-use-after-move): a moved-from callback is empty
    CHECK(moved("again") == "hello again");

    moved = hello;  // copy-assignment replaces (and destroys) the previous functor
    CHECK(Tracked::alive == 2);
    moved = cce::Callback<std::string(const std::string&)>();
    CHECK(Tracked::alive == 1);
    CHECK_FALSE(moved);
    hello = hello;  // self-assignment keeps it
    CHECK(hello("self") == "hello self");
  }
  CHECK(Tracked::alive == 0);
}

TEST_CASE("Callback: a lambda capturing a string by value is owned too") {
  cce::Callback<std::string(const std::string&)> greet;
  {
    std::string name = "engine";
    greet = [name](const std::string& s) { return s + ", " + name; };
  }
  cce::Callback<std::string(const std::string&)> copy = greet;
  greet = nullptr;
  CHECK(copy("hello") == "hello, engine");
}
