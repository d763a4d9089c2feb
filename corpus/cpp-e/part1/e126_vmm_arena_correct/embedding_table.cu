// case: An embedding table grows inside a VMM arena (header): each new chunk is mapped at the current end and granted access before the memset and kernels that touch it, and the destructor unmaps and releases every chunk before freeing the reservation, after the stream is synchronized.
// expect: none
#include "vmm_arena.h"
#include <cuda_runtime.h>
#include <initializer_list>

constexpr int kDim = 128;

__global__ void init_rows(float* table, size_t first_row, size_t rows, int dim)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= rows * dim) return;
    size_t r = first_row + i / dim;
    table[first_row * dim + i] = (float)((r * 131 + i % dim) % 97) / 97.0f;
}

int main()
{
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));
    CUstream s;
    CU_CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));

    float first_rows[4 * kDim]; // 2 KiB on the stack
    {
        VmmArena arena(0, 1ull << 30);
        size_t rows = 0;
        for (size_t target_rows : {size_t(50000), size_t(120000), size_t(400000)}) {
            size_t old_rows = rows;
            arena.grow_to(target_rows * kDim * sizeof(float));
            rows = target_rows;
            CU_CHECK(cuMemsetD32Async(arena.base() + old_rows * kDim * sizeof(float), 0,
                                      (rows - old_rows) * kDim, s));
            size_t n = (rows - old_rows) * kDim;
            init_rows<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)s>>>(
                reinterpret_cast<float*>(arena.base()), old_rows, rows - old_rows, kDim);
        }
        CU_CHECK(cuMemcpyDtoHAsync(first_rows, arena.base(), sizeof(first_rows), s));
        CU_CHECK(cuStreamSynchronize(s));
        std::printf("table holds %zu rows in %zu mapped bytes; e[0][0..3] = %f %f %f %f\n", rows,
                    arena.mapped(), first_rows[0], first_rows[1], first_rows[2], first_rows[3]);
    }
    CU_CHECK(cuStreamDestroy(s));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
