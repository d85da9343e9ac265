// cluster_dsmem.cu — thread block clusters (sm_90): the CTAs of a cluster read and update
// each other's shared memory (distributed shared memory), wait at the cluster's barrier,
// arrive at another CTA's mbarrier, and receive one TMA box multicast to all of them.
//   1. __cluster_dims__(2, 1, 1), launched with <<<>>>: each CTA reads its partner's tile
//      (cluster.map_shared_rank) and writes what it found beside its place in the cluster
//      (getctarank of the partner's address and of its own).
//   2. cudaLaunchKernelEx with clusters of 4: every CTA adds to rank 0's counter (an atomic
//      on distributed shared memory) and arrives at rank 0's mbarrier; rank 0 waits there.
//   3. clusters of 2: rank 0 multicasts one 64 x 16 box of u16 (the 128-byte swizzle) into
//      both CTAs; each completes its own mbarrier's bytes and writes its tile out.
// Every result is checked against what the host works out; `dump FILE` writes them all.
// Build: nvcc -arch=sm_90a cluster_dsmem.cu
#include <cooperative_groups.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <string_view>
#include <vector>

namespace cg = cooperative_groups;

constexpr int kThreads = 64;

__global__ void __cluster_dims__(2, 1, 1) partner(int* out) {
  __shared__ int tile[kThreads];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  tile[threadIdx.x] = int(blockIdx.x) * 1000 + int(threadIdx.x);
  cluster.sync();
  const int* other = cluster.map_shared_rank(tile, rank ^ 1u);
  int* row = out + blockIdx.x * (kThreads + 4);
  row[threadIdx.x] = other[(threadIdx.x + 1) % kThreads];
  if (threadIdx.x == 0) {
    unsigned cid, nctaid, is_explicit;
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(cid));
    asm volatile("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(nctaid));
    asm volatile("{\n .reg .pred p;\n mov.pred p, %%is_explicit_cluster;\n selp.u32 %0, 1, 0, p;\n}" : "=r"(is_explicit));
    row[kThreads] = int(rank);
    row[kThreads + 1] = int(cluster.num_blocks());
    row[kThreads + 2] = int(cid * 100 + nctaid);
    // getctarank: the partner's rank from its generic address, this CTA's from its own
    // shared::cta offset (one field: explicit + 10 x partner + 100 x own).
    unsigned other_rank, own_rank;
    asm volatile("getctarank.u64 %0, %1;" : "=r"(other_rank) : "l"(other));
    asm volatile("getctarank.shared::cluster.u32 %0, %1;" : "=r"(own_rank) : "r"(unsigned(__cvta_generic_to_shared(tile))));
    row[kThreads + 3] = int(is_explicit) + 10 * int(other_rank) + 100 * int(own_rank);
  }
  cluster.sync();  // the partner's tile stays until it has been read
}

__global__ void gather(int* out) {
  __shared__ int counter;
  __shared__ alignas(8) uint64_t bar;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  if (threadIdx.x == 0) {
    counter = 0;
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(unsigned(__cvta_generic_to_shared(&bar))),
                 "r"(cluster.num_blocks()));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  cluster.sync();
  int* root = cluster.map_shared_rank(&counter, 0);
  atomicAdd(root, int(rank + 1) * int(threadIdx.x + 1));
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(remote) : "r"(unsigned(__cvta_generic_to_shared(&bar))));
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(remote) : "memory");
  }
  if (rank == 0 && threadIdx.x == 0) {
    const unsigned at = unsigned(__cvta_generic_to_shared(&bar));
    asm volatile(
        "{\n .reg .pred done;\n WAIT:\n mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [%0], 0;\n @!done bra WAIT;\n}"
        ::"r"(at) : "memory");
    out[blockIdx.x / cluster.num_blocks()] = counter;
  }
  cluster.sync();
}

constexpr int kBoxX = 64, kBoxY = 16;  // u16: 128-byte rows

__global__ void multicast(const __grid_constant__ CUtensorMap map, unsigned short* out) {
  __shared__ alignas(1024) unsigned short tile[kBoxX * kBoxY];
  __shared__ alignas(8) uint64_t bar;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const unsigned tileAt = unsigned(__cvta_generic_to_shared(tile)), barAt = unsigned(__cvta_generic_to_shared(&bar));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(barAt));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barAt), "r"(int(sizeof(tile))) : "memory");
  }
  cluster.sync();  // every CTA's mbarrier expects the box before it is sent
  if (rank == 0 && threadIdx.x == 0) {
    const unsigned short mask = 0x3;
    const int x = 32, y = 8 * int(blockIdx.x / 2);
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
        " [%0], [%1, {%2, %3}], [%4], %5;"
        ::"r"(tileAt), "l"(&map), "r"(x), "r"(y), "r"(barAt), "h"(mask) : "memory");
  }
  asm volatile(
      "{\n .reg .pred done;\n WAIT:\n mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n @!done bra WAIT;\n}"
      ::"r"(barAt) : "memory");
  for (int i = threadIdx.x; i < kBoxX * kBoxY; i += blockDim.x) out[blockIdx.x * kBoxX * kBoxY + i] = tile[i];
  cluster.sync();
}

int main(int argc, char** argv) {
  const char* dump = argc > 2 && std::string_view(argv[1]) == "dump" ? argv[2] : nullptr;
  int wrong = 0, checked = 0;
  auto expect = [&](long got, long want, const char* what, int i) {
    ++checked;
    if (got == want) return;
    if (++wrong <= 5) printf("%s[%d] = %ld, expected %ld\n", what, i, got, want);
  };
  // 1. partners
  const int kBlocks1 = 4, kRow = kThreads + 4;
  int* d1;
  cudaMalloc(&d1, kBlocks1 * kRow * sizeof(int));
  partner<<<kBlocks1, kThreads>>>(d1);
  std::vector<int> h1(kBlocks1 * kRow);
  if (cudaMemcpy(h1.data(), d1, h1.size() * sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess) {
    printf("FAILED: partner: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  for (int b = 0; b < kBlocks1; ++b) {
    for (int t = 0; t < kThreads; ++t) expect(h1[b * kRow + t], (b ^ 1) * 1000 + (t + 1) % kThreads, "partner", b * kRow + t);
    expect(h1[b * kRow + kThreads], b % 2, "rank", b);
    expect(h1[b * kRow + kThreads + 1], 2, "num_blocks", b);
    expect(h1[b * kRow + kThreads + 2], (b / 2) * 100 + 2, "clusterid", b);
    expect(h1[b * kRow + kThreads + 3], 1 + 10 * ((b % 2) ^ 1) + 100 * (b % 2), "is_explicit_cluster, getctarank", b);
  }
  // 2. gather, clusters of 4 from cudaLaunchKernelEx
  const int kBlocks2 = 8, kCluster2 = 4;
  int* d2;
  cudaMalloc(&d2, kBlocks2 / kCluster2 * sizeof(int));
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(kBlocks2);
  config.blockDim = dim3(kThreads);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = kCluster2;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  config.attrs = attr;
  config.numAttrs = 1;
  if (cudaLaunchKernelEx(&config, gather, d2) != cudaSuccess) {
    printf("FAILED: cudaLaunchKernelEx: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  std::vector<int> h2(kBlocks2 / kCluster2);
  cudaMemcpy(h2.data(), d2, h2.size() * sizeof(int), cudaMemcpyDeviceToHost);
  const int per_rank = kThreads * (kThreads + 1) / 2;  // sum of threadIdx.x + 1
  for (int c = 0; c < kBlocks2 / kCluster2; ++c) expect(h2[c], per_rank * (1 + 2 + 3 + 4), "gather", c);
  // 3. multicast
  const int kW = 128, kH = 32, kBlocks3 = 4;
  std::vector<unsigned short> h(kW * kH);
  for (int i = 0; i < kW * kH; ++i) h[i] = static_cast<unsigned short>(i);
  unsigned short *dm, *d3;
  cudaMalloc(&dm, h.size() * 2);
  cudaMalloc(&d3, kBlocks3 * kBoxX * kBoxY * 2);
  cudaMemcpy(dm, h.data(), h.size() * 2, cudaMemcpyHostToDevice);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q) != cudaSuccess || !fn) {
    printf("FAILED: no cuTensorMapEncodeTiled\n");
    return 1;
  }
  auto encode = reinterpret_cast<decltype(&cuTensorMapEncodeTiled)>(fn);
  const cuuint64_t dims[2] = {kW, kH}, strides[1] = {kW * 2};
  const cuuint32_t box[2] = {kBoxX, kBoxY}, elem[2] = {1, 1};
  CUtensorMap map;
  if (encode(&map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, dm, dims, strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
             CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    printf("FAILED: cuTensorMapEncodeTiled\n");
    return 1;
  }
  config.gridDim = dim3(kBlocks3);
  attr[0].val.clusterDim.x = 2;
  if (cudaLaunchKernelEx(&config, multicast, map, d3) != cudaSuccess) {
    printf("FAILED: cudaLaunchKernelEx (multicast): %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  std::vector<unsigned short> h3(kBlocks3 * kBoxX * kBoxY);
  if (cudaMemcpy(h3.data(), d3, h3.size() * 2, cudaMemcpyDeviceToHost) != cudaSuccess) {
    printf("FAILED: multicast: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  for (int b = 0; b < kBlocks3; ++b)
    for (int i = 0; i < kBoxX * kBoxY; ++i) {
      // Element i of the box lies at byte 2i with its 16-byte chunk moved by the 128-byte
      // swizzle (chunk bits 4-6 XOR row bits 7-9).
      const int r = i / kBoxX, x = 32 + i % kBoxX, y = 8 * (b / 2) + r;
      const int want = x < kW ? y * kW + x : 0;  // past the tensor's right edge: zeros
      const int byte = 2 * i, moved = byte ^ (((byte >> 7) & 7) << 4);
      expect(h3[b * kBoxX * kBoxY + moved / 2], want, "multicast", b * kBoxX * kBoxY + moved / 2);
    }
  if (dump) {
    FILE* f = fopen(dump, "wb");
    fwrite(h1.data(), 4, h1.size(), f);
    fwrite(h2.data(), 4, h2.size(), f);
    fwrite(h3.data(), 2, h3.size(), f);
    fclose(f);
  }
  printf("%s: %d of %d values wrong\n", wrong ? "FAILED" : "PASSED", wrong, checked);
  return wrong ? 1 : 0;
}
