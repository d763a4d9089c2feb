// case: sparse-solver block pool (created by a factory, shared through std::shared_ptr) that records how each block was allocated and releases it to match: cudaFree for device, managed and cudaMallocAsync blocks (cudaFree of stream-ordered memory is allowed once its work is done, and the pool synchronizes first), cudaFreeHost for cudaHostAlloc blocks, cudaHostUnregister then free for registered malloc blocks: correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t e_ = (call);                                                  \
        if (e_ != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

enum class MemKind { Device, DeviceAsync, Managed, Pinned, Registered };

class BlockPool {
public:
    static std::shared_ptr<BlockPool> make()
    {
        return std::shared_ptr<BlockPool>(new BlockPool());
    }
    ~BlockPool()
    {
        cudaStreamSynchronize(stream_); // nothing may still use a block
        for (auto it = blocks_.rbegin(); it != blocks_.rend(); ++it) release(*it);
        cudaStreamDestroy(stream_);
    }

    template <typename T>
    T* acquire(size_t count, MemKind kind)
    {
        const size_t bytes = count * sizeof(T);
        void* p = nullptr;
        switch (kind) {
        case MemKind::Device: CUDA_CHECK(cudaMalloc(&p, bytes)); break;
        case MemKind::DeviceAsync: CUDA_CHECK(cudaMallocAsync(&p, bytes, stream_)); break;
        case MemKind::Managed: CUDA_CHECK(cudaMallocManaged(&p, bytes)); break;
        case MemKind::Pinned: CUDA_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocPortable)); break;
        case MemKind::Registered:
            p = std::malloc(bytes);
            CUDA_CHECK(cudaHostRegister(p, bytes, cudaHostRegisterDefault));
            break;
        }
        blocks_.push_back(Block{p, kind});
        return static_cast<T*>(p);
    }

    cudaStream_t stream() const { return stream_; }

private:
    struct Block { void* ptr; MemKind kind; };

    BlockPool() { CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }

    static void release(const Block& b)
    {
        switch (b.kind) {
        case MemKind::Device:
        case MemKind::DeviceAsync:
        case MemKind::Managed: cudaFree(b.ptr); break;
        case MemKind::Pinned: cudaFreeHost(b.ptr); break;
        case MemKind::Registered:
            cudaHostUnregister(b.ptr);
            std::free(b.ptr);
            break;
        }
    }

    cudaStream_t stream_ = nullptr;
    std::vector<Block> blocks_;
};

__global__ void axpy(int n, double a, const double* x, double* y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}

__global__ void dot_partial(int n, const double* x, const double* y, double* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, x[i] * y[i]);
}

int main()
{
    const int n = 1 << 21;
    auto pool = BlockPool::make();
    cudaStream_t s = pool->stream();

    double* h_x = pool->acquire<double>(n, MemKind::Registered);
    double* h_y = pool->acquire<double>(n, MemKind::Pinned);
    double* d_x = pool->acquire<double>(n, MemKind::Device);
    double* d_y = pool->acquire<double>(n, MemKind::DeviceAsync);
    double* dot = pool->acquire<double>(1, MemKind::Managed);
    for (int i = 0; i < n; ++i) { h_x[i] = 1.0 / (i + 1); h_y[i] = 1.0; }
    *dot = 0.0;

    CUDA_CHECK(cudaMemcpyAsync(d_x, h_x, n * sizeof(double), cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemcpyAsync(d_y, h_y, n * sizeof(double), cudaMemcpyHostToDevice, s));
    axpy<<<n / 256, 256, 0, s>>>(n, -0.5, d_x, d_y);
    dot_partial<<<n / 256, 256, 0, s>>>(n, d_x, d_y, dot);
    CUDA_CHECK(cudaMemcpyAsync(h_y, d_y, n * sizeof(double), cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));

    printf("x.y = %.6f, y[0] = %.3f, y[n-1] = %.6f\n", *dot, h_y[0], h_y[n - 1]);
    return 0; // the last shared_ptr goes: ~BlockPool releases every block to match
}
