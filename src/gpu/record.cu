// src/gpu/record.cu — instrumented recording on the GPU: the catalog instantiated with
// RecordCtx, and the host side that turns the device's records into the emulator's trace.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

#include "gpu/launch.cuh"

namespace ws::gpu {
namespace detail {
namespace {

constexpr uint64_t kInitialRecords = uint64_t(1) << 20;  // 152 MiB; grown once if a capture needs more

// The small per-launch state the device writes besides the records.
struct Control {
  unsigned long long cursor;
  unsigned long long total;
  unsigned long long dropped_lanes;
  uint32_t dropped_keys[abi::kSiteSlots];
  abi::Fault fault;
  abi::SharedDesc shared[abi::kMaxShared];
};

std::string fault_text(const abi::Fault& f, const std::vector<trace::Buffer>& buffers) {
  std::string name = f.buffer < buffers.size() ? buffers[f.buffer].name : "buffer " + std::to_string(f.buffer);
  return "out-of-bounds access to '" + name + "' at kernel line " + std::to_string(f.line) + ": byte offset " +
         std::to_string(f.offset) + " of " + std::to_string(f.size) + " (thread " + std::to_string(f.thread[0]) +
         "," + std::to_string(f.thread[1]) + " of block " + std::to_string(f.block[0]) + "," +
         std::to_string(f.block[1]) + ")";
}

class RecordLauncher {
 public:
  // `out` null: timing only (nothing is copied back).
  RecordLauncher(const catalog::KernelInfo& k, DeviceArrays& a, const CaptureOptions& opt, trace::Trace* out)
      : k_(k), a_(a), opt_(opt), out_(out), control_(sizeof(Control), "the recorder's counters") {}

  template <class T>
  Buf<T> buf(int index) {
    return Buf<T>{static_cast<T*>(a_.ptr(size_t(index))), uint32_t(index)};
  }

  template <class Op, class Args>
  void launch(dim3 grid, dim3 block, uint32_t dyn_bytes, const Args& args) {
    auto kernel = entry<Op, RecordCtx, Args>(block);
    allow_dynamic_shared(reinterpret_cast<const void*>(kernel), dyn_bytes, k_.id);
    run([&] { kernel<<<grid, block, dyn_bytes, cudaStream_t(stream())>>>(args); }, grid, block, dyn_bytes);
  }

  uint64_t lane_accesses = 0;

 private:
  template <class F>
  void run(const F& go, dim3 grid, dim3 block, uint32_t dyn_bytes) {
    prepare(grid, block, dyn_bytes);
    go();
    check(cudaGetLastError(), "launching " + k_.id + " (record mode)");
    if (!out_) return;
    sync(k_.id + " (record mode)");
    if (grow()) {  // too small a buffer for what the caller allows: once more, larger
      prepare(grid, block, dyn_bytes);
      go();
      sync(k_.id + " (record mode)");
    }
    collect(grid, block, dyn_bytes);
  }

  uint64_t remaining() const {
    if (!opt_.keep_records) return 0;
    uint64_t have = out_ ? out_->records.size() : 0;
    return opt_.max_records > have ? opt_.max_records - have : 0;
  }

  void prepare(dim3 grid, dim3 block, uint32_t dyn_bytes) {
    const uint64_t nblocks = uint64_t(grid.x) * grid.y * grid.z;
    if (!records_) {  // every record that fits is kept; the host truncates to max_records in order
      uint64_t cap = remaining() ? kInitialRecords : 0;
      records_ = std::make_unique<DeviceMemory>(std::max<uint64_t>(cap, 1) * sizeof(abi::Record), "the record buffer");
      capacity_ = cap;
    }
    abi::RecordState st{};
    st.warp_bits = 0xffffffffu;
    for (size_t i = 0; i < a_.size() && i < abi::kMaxGlobals; ++i) st.info.global_bytes[i] = a_.bytes(i);
    st.info.n_global = uint32_t(a_.size());
    st.info.dyn_bytes = dyn_bytes;
    auto* ctl = static_cast<Control*>(control_.get());
    st.info.shared = ctl->shared;
    st.info.fault = &ctl->fault;
    st.records = static_cast<abi::Record*>(records_->get());
    st.capacity = capacity_;
    st.cursor = &ctl->cursor;
    st.total = &ctl->total;
    st.dropped_keys = ctl->dropped_keys;
    st.dropped_lanes = &ctl->dropped_lanes;
    if (!opt_.blocks.empty()) {
      std::vector<uint32_t> bits((nblocks + 31) / 32, 0);
      for (uint32_t b : opt_.blocks) {
        if (b >= nblocks)
          throw std::invalid_argument("block " + std::to_string(b) + " is outside the grid of " +
                                      std::to_string(nblocks) + " blocks");
        bits[b >> 5] |= 1u << (b & 31);
      }
      if (bits != bits_) {
        if (!block_bits_ || block_bits_->bytes() < bits.size() * 4)
          block_bits_ = std::make_unique<DeviceMemory>(bits.size() * 4, "the block filter");
        check(cudaMemcpy(block_bits_->get(), bits.data(), bits.size() * 4, cudaMemcpyHostToDevice),
              "uploading the block filter");
        bits_ = bits;
      }
      st.block_bits = static_cast<const uint32_t*>(block_bits_->get());
    }
    if (!opt_.warps.empty()) {
      st.warp_bits = 0;
      for (uint32_t w : opt_.warps)
        if (w < 32) st.warp_bits |= 1u << w;
    }
    // Asynchronous resets, and the constant state only when it changed: a timed run pays
    // for the recording, not for the set-up.
    check(cudaMemsetAsync(ctl, 0, sizeof(Control), cudaStream_t(stream())), "resetting the recorder");
    check(cudaMemsetAsync(ctl->dropped_keys, 0xff, sizeof ctl->dropped_keys, cudaStream_t(stream())),
          "resetting the recorder");
    if (!state_set_ || std::memcmp(&st, &state_, sizeof st) != 0) {
      check(cudaMemcpyToSymbol(g_record_state, &st, sizeof st), "setting up the recorder");
      state_ = st;
      state_set_ = true;
    }
  }

  // After a run: whether the buffer dropped records that the caller wants and that fit.
  bool grow() {
    unsigned long long cursor = 0;
    check(cudaMemcpy(&cursor, &static_cast<Control*>(control_.get())->cursor, sizeof cursor, cudaMemcpyDeviceToHost),
          "reading the record count");
    uint64_t want = cursor;  // slots, holes of unfinished chunks included
    if (!remaining() || want <= capacity_) return false;
    size_t free_b = 0, total = 0;
    check(cudaMemGetInfo(&free_b, &total), "reading free device memory");
    uint64_t need = want * sizeof(abi::Record);
    if (need + (uint64_t(512) << 20) > free_b) return false;  // keep what fits; the rest is reported dropped
    records_.reset();
    records_ = std::make_unique<DeviceMemory>(need, "the record buffer");
    capacity_ = want;
    return true;
  }

  void collect(dim3 grid, dim3 block, uint32_t dyn_bytes) {
    trace::Trace& out = *out_;
    Control ctl;
    check(cudaMemcpy(&ctl, control_.get(), sizeof ctl, cudaMemcpyDeviceToHost), "reading the recorder's counters");
    out.launch.grid = dim(grid);
    out.launch.block = dim(block);
    out.launch.dynamic_shared_bytes = dyn_bytes;
    if (ctl.fault.flag) throw Error(fault_text(ctl.fault, out.buffers));
    for (const auto& d : ctl.shared) {
      if (!d.used) break;
      trace::Buffer b;
      b.name = std::string(d.name, strnlen(d.name, sizeof d.name));
      b.space = trace::Space::Shared;
      b.elem_bytes = d.elem_bytes;
      b.rows = d.rows;
      b.cols = d.cols;
      b.size_bytes = d.size_bytes;
      out.buffers.push_back(b);
    }

    const uint64_t slots = std::min<uint64_t>(ctl.cursor, state_.capacity);
    std::vector<abi::Record> dev(slots);
    if (slots)
      check(cudaMemcpy(dev.data(), records_->get(), slots * sizeof(abi::Record), cudaMemcpyDeviceToHost),
            "copying the records back");
    dev.erase(std::remove_if(dev.begin(), dev.end(), [](const abi::Record& r) { return r.key == abi::kEmptyKey; }),
              dev.end());
    const uint64_t kept = dev.size();

    // The emulator's order: blocks as listed, then epoch, warp, sequence.
    const uint64_t nblocks = uint64_t(grid.x) * grid.y * grid.z;
    std::vector<uint32_t> rank;
    if (!opt_.blocks.empty()) {
      rank.assign(nblocks, 0);
      for (size_t i = 0; i < opt_.blocks.size(); ++i) rank[opt_.blocks[i]] = uint32_t(i);
    }
    auto block_rank = [&](uint32_t b) { return rank.empty() ? b : rank[b]; };
    std::vector<uint32_t> order(kept);
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
      const abi::Record &a = dev[x], &b = dev[y];
      uint32_t ra = block_rank(a.block), rb = block_rank(b.block);
      if (ra != rb) return ra < rb;
      if (a.epoch != b.epoch) return a.epoch < b.epoch;
      if (a.warp != b.warp) return a.warp < b.warp;
      return a.seq < b.seq;
    });

    std::unordered_map<uint32_t, uint16_t> site_of;
    for (size_t i = 0; i < out.sites.size(); ++i) {
      const auto& s = out.sites[i];
      site_of.emplace(abi::make_key(s.line, s.buffer, uint32_t(s.op), s.bytes), uint16_t(i));
    }
    auto site_for = [&](uint32_t key) -> uint16_t {
      auto it = site_of.find(key);
      if (it != site_of.end()) return it->second;
      trace::Site s;
      s.line = abi::key_line(key);
      s.buffer = uint16_t(abi::key_buffer(key));
      s.space = s.buffer < out.buffers.size() ? out.buffers[s.buffer].space : trace::Space::Global;
      s.op = trace::Op(abi::key_op(key));
      s.bytes = uint8_t(abi::key_bytes(key));
      out.sites.push_back(s);
      uint16_t id = uint16_t(out.sites.size() - 1);
      site_of.emplace(key, id);
      return id;
    };

    // Every site in order of first execution, then the first max_records records kept, as
    // the emulator does.
    const uint64_t room = remaining();
    out.records.reserve(out.records.size() + std::min(kept, room));
    uint64_t lanes = ctl.dropped_lanes, taken = 0;
    for (uint32_t i : order) {
      const abi::Record& d = dev[i];
      lanes += uint64_t(__builtin_popcount(d.active));
      uint16_t site = site_for(d.key);
      if (taken == room) continue;
      ++taken;
      trace::Record r;
      r.block = d.block;
      r.warp = uint16_t(d.warp);
      r.site = site;
      r.seq = d.seq;
      r.epoch = d.epoch;
      r.active = d.active;
      for (int l = 0; l < trace::kWarpSize; ++l) r.offset[l] = (d.active >> l) & 1u ? d.offset[l] : 0u;
      out.records.push_back(r);
    }
    std::vector<uint32_t> dropped_keys;
    for (uint32_t key : ctl.dropped_keys)
      if (key != abi::kEmptyKey) dropped_keys.push_back(key);
    std::sort(dropped_keys.begin(), dropped_keys.end());
    for (uint32_t key : dropped_keys) site_for(key);
    out.dropped_records += ctl.total - taken;
    if (opt_.blocks.empty()) {
      for (uint64_t b = 0; b < nblocks; ++b) out.blocks.push_back(uint32_t(b));
    } else {
      out.blocks.insert(out.blocks.end(), opt_.blocks.begin(), opt_.blocks.end());
    }
    lane_accesses += lanes;
  }

  const catalog::KernelInfo& k_;
  DeviceArrays& a_;
  const CaptureOptions& opt_;
  trace::Trace* out_;
  DeviceMemory control_;
  std::unique_ptr<DeviceMemory> records_, block_bits_;
  uint64_t capacity_ = 0;
  abi::RecordState state_{};
  bool state_set_ = false;
  std::vector<uint32_t> bits_;
};

class RecordRunner : public Runner {
 public:
  RecordRunner(const catalog::KernelInfo& k, const catalog::Params& p, DeviceArrays& a, const CaptureOptions& opt)
      : p_(p), opt_(opt), launcher_(k, a, opt_, nullptr), run_(find_run<RecordLauncher>(k.id)) {
    if (!run_) throw Error("no GPU entry for kernel " + k.id);
  }
  void launch() override { run_(launcher_, p_); }

 private:
  catalog::Params p_;
  CaptureOptions opt_;
  RecordLauncher launcher_;
  RunFn<RecordLauncher> run_;
};

}  // namespace

std::unique_ptr<Runner> record_runner(const catalog::KernelInfo& k, const catalog::Params& p, DeviceArrays& a,
                                      const CaptureOptions& opt) {
  return std::make_unique<RecordRunner>(k, p, a, opt);
}

// The trace's launch fields and global arrays, as the emulator fills them.
void start_trace(const catalog::KernelInfo& k, const catalog::Params& p, trace::Trace& out) {
  out = trace::Trace{};
  out.launch.kernel = k.id;
  out.launch.params = p.values;
  out.launch.backend = "gpu";
  out.launch.device = device_name();
  out.source_name = k.source_file;
  out.source = catalog::source(k.source_file);
  for (const auto& s : k.buffers(p)) {
    trace::Buffer b;
    b.name = s.name;
    b.space = trace::Space::Global;
    b.elem_bytes = s.elem_bytes;
    b.rows = s.rows;
    b.cols = s.cols;
    b.col_major = s.col_major;
    b.size_bytes = s.elements() * s.elem_bytes;
    out.buffers.push_back(b);
  }
  if (out.buffers.size() > abi::kMaxGlobals)
    throw Error(k.id + " has " + std::to_string(out.buffers.size()) + " arrays; the GPU recorder handles " +
                std::to_string(abi::kMaxGlobals));
}

}  // namespace detail

uint64_t record(const catalog::KernelInfo& k, const catalog::Params& p, catalog::HostArrays& arrays,
                const CaptureOptions& opt, trace::Trace& out) {
  using namespace detail;
  require_device();
  auto run = find_run<RecordLauncher>(k.id);
  if (!run) throw std::invalid_argument("no GPU entry for kernel " + k.id);
  start_trace(k, p, out);
  DeviceArrays dev(k, p);
  dev.upload(arrays);
  RecordLauncher l(k, dev, opt, &out);
  run(l, p);
  dev.download_outputs(arrays);
  for (auto& s : out.sites) s.code = trace::source_line(out.source, s.line);
  return l.lane_accesses;
}

}  // namespace ws::gpu
