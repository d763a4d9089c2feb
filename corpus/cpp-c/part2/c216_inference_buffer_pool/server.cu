// case: an inference server takes pinned staging and device activations from a size-bucketed pool whose release path, in the default build (POOL_TRACK_KIND defined in the header), frees each block with the function of the allocator that made it
// expect: none
#include "buffer_pool.h"
#include <cstring>

__global__ void mlp_layer(const float* x, const float* w, float* y, int in_dim, int out_dim, int batch) {
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y;
    if (o >= out_dim || b >= batch) return;
    float acc = 0.f;
    for (int i = 0; i < in_dim; ++i) acc += x[b * in_dim + i] * w[(size_t)i * out_dim + o];
    y[b * out_dim + o] = acc > 0.f ? acc : 0.f;
}

static float serve_batch(BufferPool& pool, cudaStream_t s, const float* d_w, int batch, int in_dim, int out_dim) {
    const size_t in_bytes = (size_t)batch * in_dim * sizeof(float);
    const size_t out_bytes = (size_t)batch * out_dim * sizeof(float);
    Block h_in = pool.acquire(in_bytes, MemKind::Pinned);
    Block h_out = pool.acquire(out_bytes, MemKind::Pinned);
    Block d_in = pool.acquire(in_bytes, MemKind::Device);
    Block d_out = pool.acquire(out_bytes, MemKind::Device);

    float* x = static_cast<float*>(h_in.ptr);
    for (int i = 0; i < batch * in_dim; ++i) x[i] = (float)(i % 7) * 0.1f;

    cudaMemcpyAsync(d_in.ptr, h_in.ptr, in_bytes, cudaMemcpyHostToDevice, s);
    dim3 grid((out_dim + 127) / 128, batch);
    mlp_layer<<<grid, 128, 0, s>>>(static_cast<float*>(d_in.ptr), d_w, static_cast<float*>(d_out.ptr),
                                   in_dim, out_dim, batch);
    cudaMemcpyAsync(h_out.ptr, d_out.ptr, out_bytes, cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);

    float score = static_cast<float*>(h_out.ptr)[0];
    pool.recycle(d_out);
    pool.recycle(d_in);
    pool.recycle(h_out);
    pool.recycle(h_in);
    return score;
}

int main() {
    const int in_dim = 1024, out_dim = 512;
    float* d_w = nullptr;
    cudaMalloc(&d_w, (size_t)in_dim * out_dim * sizeof(float));
    cudaMemset(d_w, 0, (size_t)in_dim * out_dim * sizeof(float));
    cudaDeviceSynchronize();

    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    {
        BufferPool pool;
        float last = 0.f;
        for (int batch : {1, 8, 32, 8, 64, 1})
            last = serve_batch(pool, s, d_w, batch, in_dim, out_dim);
        std::printf("last score %f\n", last);
        pool.trim();
    }
    cudaStreamDestroy(s);
    cudaFree(d_w);
    return 0;
}
