// partition_reduce.cu — lanes grouped by a label (cooperative groups' labeled_partition:
// match.any.sync, then redux.sync and vote.sync over each lane's own group mask): each group
// reduces only its own values. The host checks every lane's group size, sum, max and ballot.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>
namespace cg = cooperative_groups;

__global__ void groups(const int* label, const int* value, int* out) {
  const int l = threadIdx.x;
  auto g = cg::labeled_partition(cg::coalesced_threads(), label[l]);
  out[4 * l + 0] = g.size();
  out[4 * l + 1] = cg::reduce(g, value[l], cg::plus<int>());
  out[4 * l + 2] = cg::reduce(g, value[l], cg::greater<int>());
  out[4 * l + 3] = int(g.ballot(value[l] % 2 == 0));  // bits of the group's own lanes
}

int main() {
  int label[32], value[32], out[128];
  for (int l = 0; l < 32; ++l) label[l] = (l * 7) % 3, value[l] = l * l - 40;
  int *dl, *dv, *dout;
  cudaMalloc(&dl, sizeof label);
  cudaMalloc(&dv, sizeof value);
  cudaMalloc(&dout, sizeof out);
  cudaMemcpy(dl, label, sizeof label, cudaMemcpyHostToDevice);
  cudaMemcpy(dv, value, sizeof value, cudaMemcpyHostToDevice);
  groups<<<1, 32>>>(dl, dv, dout);
  cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int l = 0; l < 32; ++l) {
    int size = 0, sum = 0, max = -1000000, rank = 0;
    unsigned ballot = 0;
    for (int k = 0; k < 32; ++k)
      if (label[k] == label[l]) {
        if (value[k] % 2 == 0) ballot |= 1u << rank;
        ++size, ++rank, sum += value[k], max = value[k] > max ? value[k] : max;
      }
    if (out[4 * l] != size || out[4 * l + 1] != sum || out[4 * l + 2] != max || unsigned(out[4 * l + 3]) != ballot) {
      std::printf("lane %d: size %d sum %d max %d ballot %x, expected %d %d %d %x\n", l, out[4 * l], out[4 * l + 1],
                  out[4 * l + 2], out[4 * l + 3], size, sum, max, ballot);
      ++bad;
    }
  }
  std::printf(bad ? "partition reduce: FAILED\n" : "partition reduce: correct\n");
  return bad ? 1 : 0;
}
