// src/ptx/races.cpp — shared-memory races of a recorded launch: each shared word's last
// writer and readers since the block's last barrier, and a report (Device::races) when
// warps of the block reach one word between the same two barriers, one of them writing,
// not both atomically. Once per pair of lines and array, at most kRacesPerLaunch a launch.
#include <algorithm>
#include <cstring>
#include <string>

#include "ptx/block_run.h"

namespace ws::ptx {

namespace {

// The bytes of word `word` that an access of `bytes` at window offset `a` covers, a bit each.
inline uint8_t word_bytes(uint64_t a, uint64_t end, uint64_t word) {
  const uint64_t lo = std::max(a, word * 4) - word * 4, hi = std::min(end, word * 4 + 4) - word * 4;
  return uint8_t(((1u << hi) - 1) & ~((1u << lo) - 1));
}

}  // namespace

// The shadow, one entry per word of the window; false when the device looks for no races.
[[gnu::noinline]] bool BlockRun::make_shadow() {
  if (!d_.detect_races_ || shared_.empty()) return false;
  shadow_.assign((shared_.size() + 3) / 4, Shadow{});
  return true;
}

// One lane's access `t` of the bytes `t.bytes` of window word `word`, by warp `w`, where
// the warps' bits alone did not settle it (shared_touch): the slots, with their bytes,
// decide whether it races, and take it in.
[[gnu::noinline]] void BlockRun::touch_word(uint64_t word, Touch t, uint32_t w, RaceEnd::Access how, uint64_t now) {
  Shadow& s = shadow_[word];
  const uint32_t bit = 1u << (w & 31);
  if (s.when != now) {  // the word's first access since the block's last barrier
    s.when = now;
    s.write = s.read1 = s.read2 = Touch{};
    s.readers = s.writers = 0;
  }
  auto other = [&](const Touch& x) { return (x.bytes & t.bytes) && x.thread / 32u != w; };
  // The first byte both touched.
  auto at_byte = [&](const Touch& x) { return word * 4 + uint64_t(std::countr_zero(uint32_t(x.bytes & t.bytes))); };
  if (how == RaceEnd::Read) {
    if (other(s.write)) [[unlikely]]
      race(s.write, s.write.atomic ? RaceEnd::Atomic : RaceEnd::Write, t, how, at_byte(s.write));
    if (!s.read1.bytes) s.read1 = t;
    else if (s.read1.thread / 32u != w && !s.read2.bytes) s.read2 = t;
    s.readers |= bit;
    return;
  }
  if (other(s.write) && !(t.atomic && s.write.atomic)) [[unlikely]]
    race(s.write, s.write.atomic ? RaceEnd::Atomic : RaceEnd::Write, t, how, at_byte(s.write));
  else if (other(s.read1)) [[unlikely]]
    race(s.read1, RaceEnd::Read, t, how, at_byte(s.read1));
  else if (other(s.read2)) [[unlikely]]
    race(s.read2, RaceEnd::Read, t, how, at_byte(s.read2));
  s.write = t;
  s.writers |= bit;
}

// One lane's access of `bytes` at window offset `a`: whole words settle on the warps' bits
// where they can (a word's first access since the barrier, a read of a word no other warp
// wrote, a write of a word only this warp touched); the rest go to the slots.
void BlockRun::touch_lane(uint32_t pc, uint32_t w, int l, uint64_t a, uint32_t bytes, RaceEnd::Access how, uint64_t now) {
  const uint32_t bit = 1u << (w & 31);
  const uint64_t end = a + bytes;
  const Touch me{pc, uint16_t(w * 32 + uint32_t(l)), 0xf, uint8_t(how == RaceEnd::Atomic)};
  if (bytes % 4 || a % 4) {  // part of a word: the slots, with their bytes
    for (uint64_t word = a / 4; word * 4 < end; ++word) {
      Touch t = me;
      t.bytes = word_bytes(a, end, word);
      touch_word(word, t, w, how, now);
    }
    return;
  }
  for (uint64_t word = a / 4; word < end / 4; ++word) {
    Shadow& s = shadow_[word];
    if (s.when != now) {
      s.when = now;
      s.read2 = Touch{};
      if (how == RaceEnd::Read) s.readers = bit, s.writers = 0, s.read1 = me, s.write = Touch{};
      else s.readers = 0, s.writers = bit, s.write = me, s.read1 = Touch{};
      continue;
    }
    if (how == RaceEnd::Read) {
      if (!(s.writers & ~bit)) {  // no other warp wrote it
        if (!(s.readers & bit)) {
          s.readers |= bit;
          if (!s.read1.bytes) s.read1 = me;
          else if (!s.read2.bytes) s.read2 = me;
        }
        continue;
      }
    } else if (!((s.writers | s.readers) & ~bit)) {
      s.writers |= bit;
      s.write = me;
      continue;
    }
    touch_word(word, me, w, how, now);
  }
}

// Most shared accesses are loads and stores of one word that settle on the warps' bits:
// done here in a few instructions a lane, the rest by touch_lane.
void BlockRun::shadow_touch(uint32_t pc, uint32_t w, uint32_t exec, const uint64_t* at, uint32_t bytes,
                            RaceEnd::Access how) {
  if (shadow_.empty() && !make_shadow()) return;
  const uint64_t now = shadow_stamp();
  const uint32_t bit = 1u << (w & 31);
  // A lane on the bytes of the lane before (a broadcast) adds nothing: the same warp and
  // instruction.
  uint64_t last = ~0ull;
  Shadow* sh = shadow_.data();
  // A read of the word a lane 16 below read too (a warp of two 16-wide rows reading one row)
  // adds nothing either: the first of them made every change the second would.
  uint32_t same = 0;
  if (how == RaceEnd::Read)
    for (int l = 16; l < 32; ++l) same |= uint32_t(at[l] == at[l - 16] && ((exec >> (l - 16)) & 1u)) << l;
  for (uint32_t m = exec & ~same; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    const uint64_t a = at[l];
    if (a == last) continue;
    last = a;
    if (bytes == 4 && a % 4 == 0 && how != RaceEnd::Atomic) [[likely]] {
      Shadow& s = sh[a / 4];
      const Touch me{pc, uint16_t(w * 32 + uint32_t(l)), 0xf, 0};
      if (s.when != now) {  // the word's first access since the barrier
        s.when = now;
        s.read2 = Touch{};
        if (how == RaceEnd::Read) s.readers = bit, s.writers = 0, s.read1 = me, s.write = Touch{};
        else s.readers = 0, s.writers = bit, s.write = me, s.read1 = Touch{};
        continue;
      }
      if (how == RaceEnd::Read && !(s.writers & ~bit)) {  // no other warp wrote it
        if (!(s.readers & bit)) {  // this warp's first read: kept, to name it if another warp writes
          s.readers |= bit;
          Touch& slot = s.read1.bytes ? s.read2 : s.read1;
          if (!slot.bytes) slot = me;
        }
        continue;
      }
      if (how == RaceEnd::Write && !((s.writers | s.readers) & ~bit)) {  // only this warp touched it
        s.writers |= bit;
        s.write = me;
        continue;
      }
    }
    touch_lane(pc, w, l, a, bytes, how, now);
  }
}

void BlockRun::shared_touch(uint32_t pc, uint32_t w, uint32_t exec, const uint64_t* at, uint32_t bytes,
                            RaceEnd::Access how) {
  if (memo_ == Memo::Off || memo_ == Memo::Checked) return shadow_touch(pc, w, exec, at, bytes, how);
  const uint32_t head2 = bytes | uint32_t(how) << 24;
  if (memo_ == Memo::Match) {
    if (memo_match(pc, w, exec, at, head2)) return;
    memo_replay();
    memo_ = Memo::Checked;
    cx_.memo = nullptr;
  } else {
    memo_log(pc, w, exec, at, head2);
  }
  shadow_touch(pc, w, exec, at, bytes, how);
}

// ---- blocks that repeat (the reference's layout: compiled::kMemoHead) ---------------------
namespace {
using compiled::kMemoHead;
constexpr size_t kMemoWords = size_t(16) << 20;  // 64 MiB: a longer block is checked as it runs
constexpr uint32_t kMemoTries = 4;               // blocks that raced before the worker stops trying
}  // namespace

void BlockRun::memo_begin() {
  memo_raced_ = false;
  memo_log_.clear();
  memo_log_patterns_.clear();
  memo_log_pattern_at_.clear();
  if (!d_.detect_races_ || shared_.empty()) memo_ = Memo::Off;
  else if (memo_have_) memo_ = Memo::Match;
  else memo_ = memo_tries_ < kMemoTries ? Memo::Build : Memo::Off;
  cx_.memo = memo_ == Memo::Match ? memo_ref_.data() : nullptr;
  cx_.patterns = memo_ref_patterns_.data();
  cx_.memo_size = memo_ref_.size();
  cx_.memo_at = 0;
  cx_.epoch = &epoch_;
}

// The block ran to its end: a race-free block logged whole becomes the reference.
void BlockRun::memo_end() {
  if (memo_ == Memo::Match) ++repeated_blocks_;
  if (memo_ == Memo::Build) {
    ++memo_tries_;
    if (!memo_raced_) {
      memo_ref_.swap(memo_log_);
      memo_ref_patterns_.swap(memo_log_patterns_);
      memo_have_ = true;
    }
    memo_log_patterns_.clear();
    memo_log_pattern_at_.clear();
  }
  memo_ = Memo::Off;
  cx_.memo = nullptr;
}

bool BlockRun::memo_match(uint32_t pc, uint32_t w, uint32_t exec, const uint64_t* at, uint32_t head2) {
  return compiled::repeats(cx_, pc, w, exec, at, head2);
}

void BlockRun::memo_log(uint32_t pc, uint32_t w, uint32_t exec, const uint64_t* at, uint32_t head2) {
  const size_t at0 = memo_log_.size();
  if (at0 + kMemoHead > kMemoWords || memo_log_patterns_.size() > kMemoWords) {  // too long to keep: checked as it runs
    memo_ = Memo::Checked;
    memo_log_.clear();
    memo_log_patterns_.clear();
    memo_log_pattern_at_.clear();
    return;
  }
  // (Window offsets fit 32 bits; were one not to, no later access would repeat it, since
  // repeats compares all 64.)
  const uint32_t b = exec ? uint32_t(at[std::countr_zero(exec)]) : 0;
  std::string pattern;
  for (uint32_t m = exec; m; m &= m - 1) {
    const uint32_t d = uint32_t(at[std::countr_zero(m)]) - b;
    pattern.append(reinterpret_cast<const char*>(&d), 4);
  }
  auto [it, fresh] = memo_log_pattern_at_.emplace(std::move(pattern), uint32_t(memo_log_patterns_.size()));
  if (fresh) {
    const size_t n = it->first.size() / 4;
    memo_log_patterns_.resize(memo_log_patterns_.size() + n);
    if (n) std::memcpy(memo_log_patterns_.data() + it->second, it->first.data(), it->first.size());
  }
  const uint32_t entry[kMemoHead] = {pc, w, exec, head2, epoch_, b, it->second};
  memo_log_.insert(memo_log_.end(), entry, entry + kMemoHead);
}

// The block's accesses so far, which repeated the reference's: checked now, in order, each
// in its own epoch.
void BlockRun::memo_replay() {
  const uint32_t keep = epoch_;
  uint64_t at[32] = {};
  for (size_t i = 0; i < cx_.memo_at;) {
    const uint32_t* r = memo_ref_.data() + i;
    const uint32_t pc = r[0], w = r[1], exec = r[2], bytes = r[3] & 0xffffffu;
    const auto how = RaceEnd::Access(r[3] >> 24);
    epoch_ = r[4];
    const uint32_t* d = memo_ref_patterns_.data() + r[6];
    for (uint32_t m = exec; m; m &= m - 1) at[std::countr_zero(m)] = uint32_t(r[5] + *d++);
    shadow_touch(pc, w, exec, at, bytes, how);
    i += kMemoHead;
  }
  epoch_ = keep;
}

void BlockRun::shared_touch(uint32_t pc, uint32_t w, uint32_t exec, const Where* where, uint32_t bytes,
                            RaceEnd::Access how) {
  uint64_t at[32];
  uint32_t lanes = 0;
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    // (another CTA's shared memory, distributed shared memory, is not checked for races)
    if (where[l].space != trace::Space::Shared || where[l].p < shared_.data() || where[l].p >= shared_.data() + shared_.size())
      continue;
    lanes |= 1u << l;
    at[l] = uint64_t(where[l].p - shared_.data());
  }
  if (lanes) shared_touch(pc, w, lanes, at, bytes, how);
}

// A race between the shadow's `before` and the access `now` at window byte `at`: kept
// unless its pair of lines and array was already reported, or the launch has its share.
[[gnu::noinline]] void BlockRun::race(const Touch& before, RaceEnd::Access before_how, const Touch& now,
                                      RaceEnd::Access now_how, uint64_t at) {
  memo_raced_ = true;
  size_t hint = 0;
  const size_t array = shared_array(at, hint);
  const Insn& x = k_.code[before.pc];
  const Insn& y = k_.code[now.pc];
  std::array<uint32_t, 5> key{x.file, x.line, y.file, y.line, uint32_t(array)};
  if (std::pair(y.file, y.line) < std::pair(x.file, x.line)) key = {y.file, y.line, x.file, x.line, uint32_t(array)};
  if (std::find(race_pairs_.begin(), race_pairs_.end(), key) != race_pairs_.end()) return;
  race_pairs_.push_back(key);
  const uint32_t launch = uint32_t(b_.trace().launches.size() - 1);
  if (!worker_ && race_pairs_.size() > kRacesPerLaunch) {
    ++d_.races_left_out_[launch];
    return;
  }
  auto end = [&](const Touch& t, RaceEnd::Access how) {
    const Insn& in = k_.code[t.pc];
    RaceEnd e;
    e.file = in.file;
    e.line = in.line;
    e.column = in.column;
    e.pc = t.pc;
    e.thread = t.thread;
    e.access = how;
    return e;
  };
  Race r;
  r.launch = launch;
  r.block = block_;
  r.array = uint32_t(array);
  r.name = array < k_.shared.size() ? demangle_var(k_.shared[array].name) : "shared memory";
  r.offset = array < shared_range_.size() ? at - shared_range_[array].first : at;
  r.first = end(before, before_how);
  r.second = end(now, now_how);
  if (worker_) {  // the merge keeps it or not, in block order (take_races)
    pending_races_.push_back({key, r});
    return;
  }
  d_.races_.push_back(r);
}

// The races a worker found past the record cap, in its blocks' order, as this (the
// launch's first) BlockRun would have found them: each pair of lines and array once, at
// most kRacesPerLaunch.
void BlockRun::take_races(const std::vector<PendingRace>& found) {
  const uint32_t launch = uint32_t(b_.trace().launches.size() - 1);
  for (const PendingRace& p : found) {
    if (std::find(race_pairs_.begin(), race_pairs_.end(), p.key) != race_pairs_.end()) continue;
    race_pairs_.push_back(p.key);
    if (race_pairs_.size() > kRacesPerLaunch) {
      ++d_.races_left_out_[launch];
      continue;
    }
    Race r = p.race;
    r.launch = launch;
    d_.races_.push_back(r);
  }
}

}  // namespace ws::ptx
