// SPDX-License-Identifier: MIT
// The allocator of both compress modules (cce.wasm and cce-fast.wasm; -sMALLOC=none), in place of
// emmalloc, which is four times its code, and of dlmalloc, which is slower: free lists by size
// class. A request takes a free block of its class or the smallest larger one there is (a block
// over four classes larger is split and its rest listed), else a new block from the top of the
// heap; a freed block goes back to the top when it lies just below it, else onto its class's list.
// Blocks are never merged. -0.6 KB gzip of what browsers download, at the same speed.
//
// What it costs: memory. A block is rounded up to its class (8-byte steps up to 128 bytes, then
// four classes per doubling: at most 25 % over the request), and freed neighbours do not merge.
// Measured against emmalloc on wasm memory after one call (MB): the 6.3 MB scale session 43 / 37,
// with fuzzy dedup 78 / 64, one 15 MB message 117 / 105; after a mix of such calls 174 / 156.
// Small conversations stay in the initial 16 MB with either. The speed build (Node, Deno) took it
// in place of dlmalloc for speed: the scale session's default call 3-4 % faster (dlmalloc's malloc
// and free were 3 % of its samples), for 37 -> 45 MB of wasm memory after it (docs/speed.md). The
// session modules keep emmalloc.
//
// The speed build shares this module's glue, which names exports in the module's export order:
// free is defined before malloc here because that is dlmalloc's order (scripts/build-wasm.sh
// compares the two glues).
#include <emscripten/heap.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace {

// Every block starts with this header; the caller's bytes follow it, 8-byte aligned (wasm32's
// alignof(max_align_t)) because every block starts and ends on 8 bytes.
struct Header {
  std::uint32_t sizeClass;
  std::uint32_t size;  // of the whole block, header included
};
static_assert(sizeof(Header) == 8);

constexpr std::size_t kAlign = 8;
constexpr std::size_t kExactLimit = 128;  // classes in 8-byte steps up to here
constexpr std::size_t kMaxRequest = 0x7fff0000;  // the classes stop below 2 GiB
constexpr unsigned kClassCount = 118;              // 1..16 exact, then 17..117 (see sizeClassOf)

struct FreeBlock {
  Header header;
  FreeBlock* next;
};

FreeBlock* freeLists[kClassCount];
char* heapTop;  // where the next block is carved
char* heapEnd;  // the end of the wasm memory

extern "C" char __heap_base;  // where the linker left the memory free: after data and stack

char* memoryEnd() { return reinterpret_cast<char*>(__builtin_wasm_memory_size(0) * 65536); }

struct SizeClass {
  unsigned index;
  std::size_t size;
};

// `total` (a multiple of 8, at least 8) rounded up to its class: exact up to 128 bytes; above,
// with 2^k < total <= 2^(k+1), up to a multiple of 2^(k-2), i.e. four classes per doubling.
SizeClass sizeClassOf(std::size_t total) {
  if (total <= kExactLimit) return {static_cast<unsigned>(total / kAlign), total};
  const unsigned k = 31u - static_cast<unsigned>(__builtin_clz(static_cast<unsigned>(total - 1)));
  const unsigned shift = k - 2;
  const std::size_t quarters = (total - 1) >> shift;  // 4..7
  return {4 * k + static_cast<unsigned>(quarters) - 11, (quarters + 1) << shift};
}

// A new block of `size` bytes from the top of the heap; nullptr when the memory cannot grow that
// far. The memory grows through emscripten_resize_heap, which also renews the glue's views of it
// (HEAPU8...) and grows by a fifth more than asked, as it does for Emscripten's allocators.
char* carve(std::size_t size) {
  if (heapTop == nullptr) {
    const std::uintptr_t base = reinterpret_cast<std::uintptr_t>(&__heap_base);
    heapTop = reinterpret_cast<char*>((base + kAlign - 1) & ~std::uintptr_t{kAlign - 1});
    heapEnd = memoryEnd();
  }
  if (static_cast<std::size_t>(heapEnd - heapTop) < size) {
    const std::uintptr_t needed = reinterpret_cast<std::uintptr_t>(heapTop) + size;
    if (needed < size || !emscripten_resize_heap(needed)) return nullptr;
    heapEnd = memoryEnd();
  }
  char* block = heapTop;
  heapTop += size;
  return block;
}

}  // namespace

extern "C" {

void free(void* pointer) {
  if (pointer == nullptr) return;
  auto* block = reinterpret_cast<FreeBlock*>(static_cast<Header*>(pointer) - 1);
  // The block just below the top goes back to the top (a buffer freed right after its successor
  // was allocated, the last of a call's temporaries...): that memory then serves any class.
  if (reinterpret_cast<char*>(block) + block->header.size == heapTop) {
    heapTop = reinterpret_cast<char*>(block);
    return;
  }
  block->next = freeLists[block->header.sizeClass];
  freeLists[block->header.sizeClass] = block;
}

void* malloc(std::size_t bytes) {
  if (bytes > kMaxRequest) return nullptr;
  const SizeClass sc = sizeClassOf((bytes + sizeof(Header) + kAlign - 1) & ~(kAlign - 1));
  Header* header = nullptr;
  // A free block of the request's class or larger before new memory, the smallest there is; one
  // more than four classes larger (over twice the size) is split, its rest listed as a free block
  // of the largest class it holds.
  for (unsigned c = sc.index; c < kClassCount; ++c) {
    FreeBlock* reused = freeLists[c];
    if (reused == nullptr) continue;
    freeLists[c] = reused->next;
    header = &reused->header;
    if (c > sc.index + 4) {
      const std::size_t rest = header->size - sc.size;
      auto* tail = reinterpret_cast<FreeBlock*>(reinterpret_cast<char*>(header) + sc.size);
      SizeClass fits = sizeClassOf(rest);
      if (fits.size > rest) --fits.index;  // the class below holds at most `rest` bytes
      tail->header = {fits.index, static_cast<std::uint32_t>(rest)};
      tail->next = freeLists[fits.index];
      freeLists[fits.index] = tail;
      header->sizeClass = sc.index;
      header->size = static_cast<std::uint32_t>(sc.size);
    }
    break;
  }
  if (header == nullptr) {
    header = reinterpret_cast<Header*>(carve(sc.size));
    if (header == nullptr) return nullptr;
    header->sizeClass = sc.index;
    header->size = static_cast<std::uint32_t>(sc.size);
  }
  return header + 1;
}

void* calloc(std::size_t count, std::size_t size) {
  if (size != 0 && count > kMaxRequest / size) return nullptr;
  void* pointer = malloc(count * size);
  if (pointer != nullptr) std::memset(pointer, 0, count * size);
  return pointer;
}

void* realloc(void* pointer, std::size_t bytes) {
  if (pointer == nullptr) return malloc(bytes);
  const Header* header = static_cast<Header*>(pointer) - 1;
  const std::size_t capacity = header->size - sizeof(Header);
  if (bytes <= capacity) return pointer;
  void* moved = malloc(bytes);
  if (moved != nullptr) {
    std::memcpy(moved, pointer, capacity);
    free(pointer);
  }
  return moved;
}

}  // extern "C"
