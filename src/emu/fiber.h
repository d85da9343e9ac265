// src/emu/fiber.h — minimal stackful fibers for the emulator: one per CUDA thread of a
// block, switched only at barriers and at thread exit. A hand-written switch costs a few
// nanoseconds where swapcontext costs a system call.
#pragma once
#include <cstddef>

namespace ws::emu {

class Fiber {
 public:
  using Entry = void (*)(void* arg);

  Fiber() = default;
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  // Allocates the stack once; `reset` may then be called any number of times.
  void allocate(size_t stack_bytes);
  // Prepares the fiber to run entry(arg) from the start at its next resume.
  void reset(Entry entry, void* arg);
  // Runs the fiber until it yields; returns on the caller's stack.
  void resume();
  // Called on the fiber: returns control to whoever resumed it.
  void yield();
  // Called on the fiber as its last act (it is never resumed again before a reset).
  [[noreturn]] void exit();

 private:
  void* sp_ = nullptr;         // saved stack pointer of the fiber
  void* caller_sp_ = nullptr;  // saved stack pointer of the resumer
  char* stack_ = nullptr;
  size_t stack_bytes_ = 0;
  size_t stagger_ = 0;
  // Sanitizer bookkeeping for the stack switch.
  const void* caller_stack_bottom_ = nullptr;
  size_t caller_stack_size_ = 0;
  void* fake_stack_ = nullptr;
  void* tsan_fiber_ = nullptr;   // ThreadSanitizer's context of this fiber, and of its resumer
  void* tsan_caller_ = nullptr;
  Entry entry_ = nullptr;
  void* arg_ = nullptr;
  bool finished_ = true;  // the last run returned from its entry (its frames unwound)
  static void trampoline(void* self);
};

// Stack size for emulated threads; larger under sanitizers whose frames are bigger.
size_t default_stack_bytes();

}  // namespace ws::emu
