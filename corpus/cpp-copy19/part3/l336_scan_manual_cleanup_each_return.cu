// case: a block-wise exclusive scan helper has four error returns, and each one frees exactly the buffers allocated before it; the success path frees both
// expect: none
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

constexpr int kBlock = 512;

__global__ void block_exclusive_scan(const int* in, int* out, int n) {
    __shared__ int tmp[kBlock];
    int gid = blockIdx.x * kBlock + threadIdx.x;
    tmp[threadIdx.x] = (gid < n) ? in[gid] : 0;
    __syncthreads();
    for (int off = 1; off < kBlock; off <<= 1) {
        int v = (threadIdx.x >= off) ? tmp[threadIdx.x - off] : 0;
        __syncthreads();
        tmp[threadIdx.x] += v;
        __syncthreads();
    }
    if (gid < n) out[gid] = (threadIdx.x == 0) ? 0 : tmp[threadIdx.x - 1];
}

static const char* scan_error = nullptr;

bool scan_blocks(const std::vector<int>& in, std::vector<int>& out) {
    const int n = (int)in.size();
    const size_t bytes = n * sizeof(int);
    int* d_in = nullptr;
    int* d_out = nullptr;

    if (cudaMalloc(&d_in, bytes) != cudaSuccess) {
        scan_error = "alloc in";
        return false;
    }
    if (cudaMalloc(&d_out, bytes) != cudaSuccess) {
        scan_error = "alloc out";
        cudaFree(d_in);
        return false;
    }
    if (cudaMemcpy(d_in, in.data(), bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
        scan_error = "upload";
        cudaFree(d_out);
        cudaFree(d_in);
        return false;
    }

    block_exclusive_scan<<<(n + kBlock - 1) / kBlock, kBlock>>>(d_in, d_out, n);
    out.resize(n);
    if (cudaMemcpy(out.data(), d_out, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
        scan_error = "download";
        cudaFree(d_out);
        cudaFree(d_in);
        return false;
    }
    cudaFree(d_out);
    cudaFree(d_in);
    return true;
}

int main() {
    std::vector<int> in(1 << 20, 1), out;
    if (!scan_blocks(in, out)) {
        fprintf(stderr, "scan failed: %s\n", scan_error);
        return 1;
    }
    printf("out[0]=%d out[1]=%d out[%d]=%d out[%d]=%d\n", out[0], out[1], kBlock - 1,
           out[kBlock - 1], kBlock, out[kBlock]);
    return 0;
}
