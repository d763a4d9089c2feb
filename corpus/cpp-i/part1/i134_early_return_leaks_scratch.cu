// case: a batched prefix-sum helper allocates a device scratch buffer and returns false on an invalid batch layout without freeing it
// expect: device_memory_leak=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void segment_scan(const int* in, int* out, int* carry, int seg_len, int nseg) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= nseg) return;
    int acc = 0;
    for (int k = 0; k < seg_len; ++k) {
        acc += in[s * seg_len + k];
        out[s * seg_len + k] = acc;
    }
    carry[s] = acc;
}

static bool batched_scan(const std::vector<int>& in, int seg_len, std::vector<int>& out,
                         std::vector<int>& totals) {
    const int n = (int)in.size();
    int *d_in, *d_out, *d_carry;
    CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(int))); // EXPECT: device_memory_leak
    if (seg_len <= 0 || n % seg_len != 0) {
        fprintf(stderr, "batched_scan: %d elements do not split into segments of %d\n", n, seg_len);
        CUDA_CHECK(cudaFree(d_in));
        return false;
    }
    const int nseg = n / seg_len;
    CUDA_CHECK(cudaMalloc(&d_carry, nseg * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    segment_scan<<<(nseg + 127) / 128, 128>>>(d_in, d_out, d_carry, seg_len, nseg);
    out.resize(n);
    totals.resize(nseg);
    CUDA_CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(totals.data(), d_carry, nseg * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_carry));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_in));
    return true;
}

int main(int argc, char** argv) {
    const int seg = argc > 1 ? atoi(argv[1]) : 1000;
    std::vector<int> in(1 << 20, 1), out, totals;
    if (!batched_scan(in, seg, out, totals)) {
        fprintf(stderr, "falling back to CPU scan\n");
        return 1;
    }
    printf("%zu segments, last total %d\n", totals.size(), totals.back());
    return 0;
}
