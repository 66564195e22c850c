// SPDX-License-Identifier: MIT
// Callback<R(Args...)>: what the engine needs of std::function for its hooks (a host's summariser
// and token counter, uncompress's lookups), without its cost in a wasm module: std::function gives
// every functor type a class with seven virtual functions and RTTI, including a mangled type name
// of 100-200 bytes per lambda. Here a functor costs one call thunk: the engine's own hooks are
// lambdas capturing a reference or two, stored inline; anything larger or not trivially copyable
// (the CLI's mocks capture strings) goes to the heap with a second thunk that copies and deletes.
#pragma once

#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace cce {

template <typename Signature>
class Callback;

template <typename R, typename... Args>
class Callback<R(Args...)> {
 public:
  Callback() = default;
  Callback(std::nullptr_t) {}  // NOLINT(google-explicit-constructor): `= nullptr` empties it

  template <typename F, typename Functor = std::decay_t<F>,
            typename = std::enable_if_t<!std::is_same_v<Functor, Callback> &&
                                        std::is_invocable_r_v<R, const Functor&, Args...>>>
  Callback(F&& f) {  // NOLINT(google-explicit-constructor): assigned from lambdas, as std::function
    if constexpr (kFitsInline<Functor>) {
      new (storage_) Functor(std::forward<F>(f));
      call_ = [](const void* storage, Args... args) -> R {
        return (*static_cast<const Functor*>(storage))(std::forward<Args>(args)...);
      };
    } else {
      Functor* functor = new Functor(std::forward<F>(f));
      std::memcpy(storage_, &functor, sizeof functor);
      call_ = [](const void* storage, Args... args) -> R {
        return (*heapFunctor<Functor>(storage))(std::forward<Args>(args)...);
      };
      heap_ = [](const void* from, void* to) {
        Functor* functor = heapFunctor<Functor>(from);
        if (to == nullptr) {
          delete functor;
          return;
        }
        Functor* copy = new Functor(*functor);
        std::memcpy(to, &copy, sizeof copy);
      };
    }
  }

  Callback(const Callback& other) { copyFrom(other); }
  Callback(Callback&& other) noexcept { takeFrom(other); }
  Callback& operator=(const Callback& other) {
    if (this != &other) {
      reset();
      copyFrom(other);
    }
    return *this;
  }
  Callback& operator=(Callback&& other) noexcept {
    if (this != &other) {
      reset();
      takeFrom(other);
    }
    return *this;
  }
  ~Callback() { reset(); }

  explicit operator bool() const { return call_ != nullptr; }

  /** Calls the functor; the callback must not be empty (callers test it first). */
  R operator()(Args... args) const { return call_(storage_, std::forward<Args>(args)...); }

 private:
  static constexpr std::size_t kInlineSize = 2 * sizeof(void*);

  template <typename Functor>
  static constexpr bool kFitsInline = std::is_trivially_copyable_v<Functor> &&
                                      sizeof(Functor) <= kInlineSize &&
                                      alignof(Functor) <= alignof(void*);

  template <typename Functor>
  static Functor* heapFunctor(const void* storage) {
    Functor* functor;
    std::memcpy(&functor, storage, sizeof functor);
    return functor;
  }

  void copyFrom(const Callback& other) {
    call_ = other.call_;
    heap_ = other.heap_;
    if (heap_ != nullptr) {
      heap_(other.storage_, storage_);
    } else {
      std::memcpy(storage_, other.storage_, kInlineSize);
    }
  }

  void takeFrom(Callback& other) {
    std::memcpy(storage_, other.storage_, kInlineSize);
    call_ = other.call_;
    heap_ = other.heap_;
    other.call_ = nullptr;
    other.heap_ = nullptr;
  }

  void reset() {
    if (heap_ != nullptr) heap_(storage_, nullptr);
    call_ = nullptr;
    heap_ = nullptr;
  }

  alignas(void*) unsigned char storage_[kInlineSize] = {};
  R (*call_)(const void* storage, Args... args) = nullptr;
  // Only for a functor on the heap (its pointer is in storage_): copies it into `to`, or deletes
  // it when `to` is null.
  void (*heap_)(const void* from, void* to) = nullptr;
};

}  // namespace cce
