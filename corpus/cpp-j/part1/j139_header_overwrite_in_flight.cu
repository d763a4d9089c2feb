// case: a packet sender fills a pinned request buffer, enqueues its upload and a parse kernel, then stamps the next sequence number into the same pinned header before synchronizing, racing the copy that is still reading it; the final download of the sums into a stack array states cudaMemcpyHostToDevice
// expect: missing_sync=1, memcpy_kind_mismatch=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CUDA_CHECK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { \
    fprintf(stderr, "%s failed at %s:%d: %s\n", #x, __FILE__, __LINE__, cudaGetErrorString(err_)); exit(1); } } while (0)

struct PacketHeader {
    uint32_t seq;
    uint32_t count;
    uint32_t flags;
    uint32_t reserved;
};

struct Request {
    PacketHeader hdr;
    float payload[1 << 18];
};

__global__ void parse_request(const Request* req, float* sums) {
    __shared__ float partial[256];
    float s = 0.f;
    for (uint32_t i = threadIdx.x; i < req->hdr.count; i += blockDim.x) s += req->payload[i];
    partial[threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.f;
        for (int k = 0; k < 256; ++k) t += partial[k];
        sums[req->hdr.seq % 64] = t;
    }
}

int main() {
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    Request* h_req;
    Request* d_req;
    float* d_sums;
    float h_sums[64];
    CUDA_CHECK(cudaMallocHost(&h_req, sizeof(Request)));
    CUDA_CHECK(cudaMalloc(&d_req, sizeof(Request)));
    CUDA_CHECK(cudaMalloc(&d_sums, sizeof(h_sums)));
    CUDA_CHECK(cudaMemset(d_sums, 0, sizeof(h_sums)));

    h_req->hdr.seq = 1;
    h_req->hdr.count = 1 << 18;
    h_req->hdr.flags = 0;
    for (uint32_t i = 0; i < h_req->hdr.count; ++i) h_req->payload[i] = 1.f;

    CUDA_CHECK(cudaMemcpyAsync(d_req, h_req, sizeof(Request), cudaMemcpyHostToDevice, s));
    parse_request<<<1, 256, 0, s>>>(d_req, d_sums);
    CUDA_CHECK(cudaGetLastError());

    h_req->hdr.seq += 1; // EXPECT: missing_sync
    h_req->hdr.flags |= 0x1;

    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaMemcpy(h_sums, d_sums, sizeof(h_sums), cudaMemcpyHostToDevice)); // EXPECT: memcpy_kind_mismatch
    printf("sum for seq 1: %f\n", h_sums[1]);

    CUDA_CHECK(cudaFree(d_sums));
    CUDA_CHECK(cudaFree(d_req));
    CUDA_CHECK(cudaFreeHost(h_req));
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}
