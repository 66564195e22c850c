// SPDX-License-Identifier: MIT
// uncompress (spec §11): expansion, passthrough, missing ids, and the recursive pass rules.
#include <doctest/doctest.h>

#include <map>

#include "uncompress.h"

namespace {

using cce::Message;
using cce::Scalar;

Scalar str(const std::u16string& s) { return {Scalar::Kind::String, s}; }

// A tiny host: handles index `messages`; the store maps ids to handles.
struct Host {
  std::vector<Message> messages;
  std::map<std::u16string, std::size_t> store;

  std::size_t add(const std::u16string& id, std::vector<std::u16string> originals = {}) {
    Message m;
    m.id = str(id);
    m.idKey = id;
    if (!originals.empty()) {
      m.cceIdsIsArray = true;
      for (const auto& o : originals) m.cceIds.push_back(str(o));
    }
    messages.push_back(m);
    return messages.size() - 1;
  }
  cce::UncompressHost host() const {
    return {[this](std::size_t h) -> const Message& { return messages[h]; },
            [this](const Scalar& id) -> std::optional<std::size_t> {
              auto it = store.find(id.text);
              if (it == store.end()) return std::nullopt;
              return it->second;
            }};
  }
};

std::vector<std::u16string> ids(const Host& h, const std::vector<std::size_t>& handles) {
  std::vector<std::u16string> out;
  for (std::size_t handle : handles) out.push_back(h.messages[handle].idKey);
  return out;
}

std::vector<std::u16string> texts(const std::vector<Scalar>& scalars) {
  std::vector<std::u16string> out;
  for (const Scalar& s : scalars) out.push_back(s.text);
  return out;
}

}  // namespace

TEST_SUITE("uncompress") {
  TEST_CASE("expands found originals, keeps a summary whose originals are all missing") {
    // The spec's verified example: g (ids a,b,c; only b stored) and h (ids zz, missing).
    Host h;
    std::size_t g = h.add(u"g", {u"a", u"b", u"c"});
    std::size_t hh = h.add(u"h", {u"zz"});
    h.store[u"b"] = h.add(u"b");

    cce::UncompressResult once = cce::uncompress({g, hh}, h.host(), false);
    CHECK(ids(h, once.messages) == std::vector<std::u16string>{u"b", u"h"});
    CHECK(once.messagesExpanded == 1);
    CHECK(once.messagesPassthrough == 1);
    CHECK(texts(once.missingIds) == std::vector<std::u16string>{u"a", u"c", u"zz"});

    cce::UncompressResult again = cce::uncompress({g, hh}, h.host(), true);
    CHECK(again.messagesPassthrough == 2);
    CHECK(texts(again.missingIds) == std::vector<std::u16string>{u"a", u"c", u"zz", u"zz"});
  }

  TEST_CASE("recursion follows a chain to link 11 and stops at the cap") {
    Host h;
    // link_k's original is link_{k+1}; link_20 is plain.
    std::vector<std::size_t> links;
    for (int k = 0; k <= 20; ++k) {
      std::u16string id = u"link_" + std::u16string(1, char16_t(u'A' + k));
      std::vector<std::u16string> next;
      if (k < 20) next.push_back(u"link_" + std::u16string(1, char16_t(u'A' + k + 1)));
      links.push_back(h.add(id, next));
      h.store[id] = links.back();
    }
    cce::UncompressResult r = cce::uncompress({links[0]}, h.host(), true);
    REQUIRE(r.messages.size() == 1);
    CHECK(h.messages[r.messages[0]].idKey == u"link_L");  // 1 + 10 passes from link_A
    CHECK(r.messagesExpanded == 11);
  }

  TEST_CASE("a message whose ids name itself stops at the pass cap") {
    Host h;
    std::size_t self = h.add(u"self", {u"self"});
    h.store[u"self"] = self;
    cce::UncompressResult r = cce::uncompress({self}, h.host(), true);
    CHECK(r.messages == std::vector<std::size_t>{self});
    CHECK(r.messagesExpanded == 11);
  }

  TEST_CASE("store entries that name each other: recursion stops at the message cap") {
    // 100 entries, each the summary of all 100: 10^2, 10^4, 10^6... messages by pass.
    Host h;
    std::vector<std::u16string> all;
    for (int i = 0; i < 100; ++i) all.push_back(u"e" + std::u16string(1, u'A' + i % 26) +
                                                std::u16string(1, u'a' + i / 26));
    for (const auto& id : all) h.store[id] = h.add(id, all);
    std::size_t top = h.add(u"top", all);
    cce::UncompressResult once = cce::uncompress({top}, h.host(), false);
    CHECK_FALSE(once.tooLarge);
    CHECK(once.messages.size() == 100);
    cce::UncompressResult deep = cce::uncompress({top}, h.host(), true);
    CHECK(deep.tooLarge);
    CHECK(deep.messages.size() <= 100 * 100);  // stopped in the pass that crossed the cap
    // A first pass larger than the cap is the input's own size: it is the limit then.
    std::vector<std::size_t> many(cce::kMaxRecursiveMessages / 100 + 1, top);
    cce::UncompressResult wide = cce::uncompress(many, h.host(), false);
    CHECK_FALSE(wide.tooLarge);
    CHECK(wide.messages.size() == many.size() * 100);
  }

  TEST_CASE("messages without originals pass through, empty ids count as none") {
    Host h;
    std::size_t plain = h.add(u"p");
    std::size_t empty = h.add(u"e");
    h.messages[empty].cceIdsIsArray = true;
    cce::UncompressResult r = cce::uncompress({plain, empty}, h.host(), true);
    CHECK(r.messages == std::vector<std::size_t>{plain, empty});
    CHECK(r.messagesPassthrough == 2);
    CHECK(r.messagesExpanded == 0);
  }
}
