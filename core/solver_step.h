// A stage of the movement solver that may wait for world sweeps: a lazy C++20 coroutine. The
// solver's stages (core/move.cpp) are written as straight code that `co_await`s each world
// sweep; the agent's whole tick then suspends there, so that a batch's driver (World::move) can
// answer the waiting sweeps of many agents together, through the engine's pooled lanes, and
// resume each. A stage calling another awaits it (`co_await slide_pass(...)`): the callee runs at
// once and hands control back to its caller when it returns (symmetric transfer), so a chain of
// stages costs no stack and no driver round trip. Internal.
#pragma once

#include <coroutine>
#include <cstddef>
#include <exception>
#include <new>
#include <type_traits>
#include <utility>

namespace capsweep::detail {

// One T per thread, for the solver's recycled scratch (FrameCache below, TraceCache in
// core/move.cpp); nullptr once the thread has destroyed it, so that what other thread_locals'
// destructors free or ask for then (a tick left waiting, held by a thread_local) goes to the
// heap instead.
template <class T>
class ThreadCache {
 public:
  static T* get() noexcept {
    if (gone_) return nullptr;
    thread_local Holder holder;
    return &holder.value;
  }

 private:
  struct Holder {
    T value;
    ~Holder() { gone_ = true; }  // before value's destructor runs
  };
  static inline thread_local bool gone_ = false;  // trivially destructible: readable to the thread's end
};

// Coroutine frames are recycled per thread, by size: an agent's tick allocates and frees a few
// frames of a handful of sizes (one per stage function), and the allocator's general path would
// cost a tenth of a sweep each time. Frames are freed on the thread that allocated them (an
// agent's tick runs on one worker from start to end).
class FrameCache {
 public:
  static void* allocate(std::size_t size) {
    if (FrameCache* cache = ThreadCache<FrameCache>::get()) {
      for (int i = 0; i < cache->kinds_; ++i) {
        if (cache->size_[i] == size && cache->free_[i]) {
          Free* f = cache->free_[i];
          cache->free_[i] = f->next;
          return f;
        }
      }
    }
    return ::operator new(size);
  }

  static void release(void* p, std::size_t size) noexcept {
    FrameCache* cache = ThreadCache<FrameCache>::get();
    if (!cache) return ::operator delete(p);
    for (int i = 0; i < cache->kinds_; ++i) {
      if (cache->size_[i] == size) return cache->push(i, p);
    }
    if (cache->kinds_ < kKinds) {
      cache->size_[cache->kinds_] = size;
      return cache->push(cache->kinds_++, p);
    }
    ::operator delete(p);
  }

  ~FrameCache() {
    for (int i = 0; i < kinds_; ++i) {
      while (Free* f = free_[i]) free_[i] = f->next, ::operator delete(f);
    }
  }

 private:
  struct Free {
    Free* next;
  };
  static constexpr int kKinds = 16;

  void push(int kind, void* p) noexcept {
    Free* f = static_cast<Free*>(p);
    f->next = free_[kind];
    free_[kind] = f;
  }

  std::size_t size_[kKinds] = {};
  Free* free_[kKinds] = {};
  int kinds_ = 0;
};

template <class T>
class Step;

struct StepPromiseBase {
  std::coroutine_handle<> caller;  // resumed when this stage returns (none: the driver's)
  std::exception_ptr error;        // thrown out of the stage: rethrown to its caller

  std::suspend_always initial_suspend() noexcept { return {}; }
  struct Return {
    bool await_ready() noexcept { return false; }
    template <class P>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<P> self) noexcept {
      const std::coroutine_handle<> c = self.promise().caller;
      return c ? c : std::noop_coroutine();
    }
    void await_resume() noexcept {}
  };
  Return final_suspend() noexcept { return {}; }
  // (The solver throws only std::bad_alloc, from a trace's scratch.)
  void unhandled_exception() noexcept { error = std::current_exception(); }

  static void* operator new(std::size_t size) { return FrameCache::allocate(size); }
  static void operator delete(void* p, std::size_t size) noexcept { FrameCache::release(p, size); }
};

template <class T>
struct StepPromise : StepPromiseBase {
  T value{};
  Step<T> get_return_object() noexcept;
  void return_value(T v) noexcept { value = std::move(v); }
};

template <>
struct StepPromise<void> : StepPromiseBase {
  Step<void> get_return_object() noexcept;
  void return_void() noexcept {}
};

// A stage's result: awaited by its caller, or (the tick itself) resumed by the driver.
template <class T>
class [[nodiscard]] Step {
 public:
  using promise_type = StepPromise<T>;
  using Handle = std::coroutine_handle<promise_type>;

  Step() = default;
  explicit Step(Handle h) noexcept : h_(h) {}
  Step(Step&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  Step& operator=(Step&& o) noexcept {
    if (this != &o) {
      if (h_) h_.destroy();
      h_ = std::exchange(o.h_, {});
    }
    return *this;
  }
  ~Step() {
    if (h_) h_.destroy();
  }

  bool await_ready() const noexcept { return false; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> caller) noexcept {
    h_.promise().caller = caller;
    return h_;
  }
  T await_resume() {
    if (h_.promise().error) std::rethrow_exception(h_.promise().error);
    if constexpr (!std::is_void_v<T>) return std::move(h_.promise().value);
  }

  // For the driver: run until the first wait (or the end), and whether it has ended; at the end,
  // what the stage threw is thrown here.
  void start() { h_.resume(); }
  bool done() const { return !h_ || h_.done(); }
  void rethrow() const {
    if (h_ && h_.done() && h_.promise().error) std::rethrow_exception(h_.promise().error);
  }

 private:
  Handle h_;
};

template <class T>
Step<T> StepPromise<T>::get_return_object() noexcept {
  return Step<T>(Step<T>::Handle::from_promise(*this));
}
inline Step<void> StepPromise<void>::get_return_object() noexcept {
  return Step<void>(Step<void>::Handle::from_promise(*this));
}

}  // namespace capsweep::detail
