#include "emu/fiber.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <new>
#include <stdexcept>

#if defined(__SANITIZE_ADDRESS__)
#define WS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WS_ASAN 1
#endif
#endif

#ifdef WS_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#if defined(__SANITIZE_THREAD__)
#define WS_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define WS_TSAN 1
#endif
#endif

#ifdef WS_TSAN
#include <sanitizer/tsan_interface.h>
// ThreadSanitizer follows each fiber as a context of its own: told before every switch, it
// keeps one shadow stack per fiber and orders what the fibers of one thread do.
#define WS_TSAN_SWITCH(to) __tsan_switch_to_fiber(to, 0)
#else
#define WS_TSAN_SWITCH(to) ((void)0)
#endif

#if !defined(__x86_64__)
#error "the emulator's fiber switch is written for x86-64"
#endif

// ws_fiber_switch(save, load): pushes the callee-saved registers and the FP control
// words, stores the stack pointer in *save, loads `load` and pops the same frame there.
// ws_fiber_start: first frame of a new fiber; r12 holds the argument, r13 the entry.
asm(R"(
.text
.globl ws_fiber_switch
.type ws_fiber_switch,@function
ws_fiber_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
.size ws_fiber_switch,.-ws_fiber_switch

.globl ws_fiber_start
.type ws_fiber_start,@function
ws_fiber_start:
  movq %r12, %rdi
  callq *%r13
  ud2
.size ws_fiber_start,.-ws_fiber_start
.section .note.GNU-stack,"",@progbits
.text
)");

extern "C" void ws_fiber_switch(void** save, void* load);
extern "C" void ws_fiber_start();

namespace ws::emu {

size_t default_stack_bytes() {
#ifdef WS_ASAN
  return 512 * 1024;
#else
  return 64 * 1024;
#endif
}

// A fiber abandoned mid-run (its kernel refused, or its block was cut short) never
// unwinds, so AddressSanitizer still holds its frames' redzones as poisoned; a later
// mapping at the same address would inherit them. Clearing the shadow costs nothing
// without the sanitizer.
static void clear_poison(char* stack, size_t bytes) {
#ifdef WS_ASAN
  if (stack) ASAN_UNPOISON_MEMORY_REGION(stack, bytes);
#else
  (void)stack;
  (void)bytes;
#endif
}

Fiber::~Fiber() {
#ifdef WS_TSAN
  if (tsan_fiber_) __tsan_destroy_fiber(tsan_fiber_);
#endif
  if (!stack_) return;
  clear_poison(stack_, stack_bytes_);
  munmap(stack_, stack_bytes_);
}

void Fiber::allocate(size_t stack_bytes) {
  if (stack_) return;
  // Lazily committed: only the pages a thread touches cost memory.
  void* p = mmap(nullptr, stack_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  stack_ = static_cast<char*>(p);
  stack_bytes_ = stack_bytes;
  clear_poison(stack_, stack_bytes_);
  static unsigned counter = 0;
  stagger_ = (counter++ * 832u) % 4096u;
#ifdef WS_TSAN
  tsan_fiber_ = __tsan_create_fiber(0);
#endif
}

void Fiber::trampoline(void* self) {
  auto* f = static_cast<Fiber*>(self);
#ifdef WS_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &f->caller_stack_bottom_, &f->caller_stack_size_);
#endif
  f->entry_(f->arg_);
  f->finished_ = true;
  f->exit();
}

void Fiber::reset(Entry entry, void* arg) {
  entry_ = entry;
  arg_ = arg;
  if (!finished_) {
    clear_poison(stack_, stack_bytes_);
#ifdef WS_TSAN
    // Abandoned mid-run: its shadow stack still holds the old frames.
    __tsan_destroy_fiber(tsan_fiber_);
    tsan_fiber_ = __tsan_create_fiber(0);
#endif
  }
  finished_ = false;
  // Frame that ws_fiber_switch pops: control words, r15..r12, rbx, rbp, return address.
  // Stacks are page-aligned; staggering their tops keeps the hot frames of many fibers
  // from competing for the same cache sets.
  uintptr_t top = (reinterpret_cast<uintptr_t>(stack_) + stack_bytes_ - stagger_) & ~uintptr_t(15);
  auto* ret = reinterpret_cast<uint64_t*>(top - 8 - 16);  // ret slot ≡ 8 (mod 16)
  ret[0] = reinterpret_cast<uint64_t>(&ws_fiber_start);
  uint64_t* f = ret - 7;
  uint32_t ctl[2];
  asm volatile("stmxcsr %0" : "=m"(ctl[0]));
  asm volatile("fnstcw %0" : "=m"(ctl[1]));
  std::memcpy(&f[0], ctl, 8);
  f[1] = 0;                                   // r15
  f[2] = 0;                                   // r14
  f[3] = reinterpret_cast<uint64_t>(&Fiber::trampoline);  // r13
  f[4] = reinterpret_cast<uint64_t>(this);                // r12
  f[5] = 0;                                   // rbx
  f[6] = 0;                                   // rbp
  sp_ = f;
}

void Fiber::resume() {
#ifdef WS_TSAN
  tsan_caller_ = __tsan_get_current_fiber();
#endif
  WS_TSAN_SWITCH(tsan_fiber_);
#ifdef WS_ASAN
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, stack_, stack_bytes_);
  ws_fiber_switch(&caller_sp_, sp_);
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#else
  ws_fiber_switch(&caller_sp_, sp_);
#endif
}

void Fiber::yield() {
  WS_TSAN_SWITCH(tsan_caller_);
#ifdef WS_ASAN
  __sanitizer_start_switch_fiber(&fake_stack_, caller_stack_bottom_, caller_stack_size_);
  ws_fiber_switch(&sp_, caller_sp_);
  __sanitizer_finish_switch_fiber(fake_stack_, &caller_stack_bottom_, &caller_stack_size_);
#else
  ws_fiber_switch(&sp_, caller_sp_);
#endif
}

void Fiber::exit() {
  WS_TSAN_SWITCH(tsan_caller_);
#ifdef WS_ASAN
  __sanitizer_start_switch_fiber(nullptr, caller_stack_bottom_, caller_stack_size_);
#endif
  ws_fiber_switch(&sp_, caller_sp_);
  __builtin_unreachable();
}

}  // namespace ws::emu
