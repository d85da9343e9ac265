// A program with a typo: warpscope reports nvcc's error line.
__global__ void k(float* a) { a[threadIdx.x] = undefined_name; }
int main() { return 0; }
