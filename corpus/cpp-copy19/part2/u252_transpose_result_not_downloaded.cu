// case: a templated shared-memory transpose wrapper in a Matrix class; the transpose is written into the destination matrix on the device, but only the source is ever downloaded, and the destination is freed unread.
// expect: unread_kernel_output=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s (%d)\n", cudaGetErrorString(e), __LINE__); std::exit(1); } } while (0)

#define TILE_DIM 32
#define BLOCK_ROWS 8

template <typename T>
__global__ void transpose_tiled(const T* in, T* out, int rows, int cols)
{
    __shared__ T tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

template <typename T>
class DeviceMatrix {
public:
    DeviceMatrix(int r, int c) : rows(r), cols(c) { CUDA_CHECK(cudaMalloc(&ptr, bytes())); }
    ~DeviceMatrix() {
        CUDA_CHECK(cudaFree(ptr)); // EXPECT: unread_kernel_output
    }
    size_t bytes() const { return size_t(rows) * cols * sizeof(T); }
    void upload(const std::vector<T>& h) { CUDA_CHECK(cudaMemcpy(ptr, h.data(), bytes(), cudaMemcpyHostToDevice)); }
    void download(std::vector<T>& h) const { CUDA_CHECK(cudaMemcpy(h.data(), ptr, bytes(), cudaMemcpyDeviceToHost)); }

    void transpose_into(DeviceMatrix& dst) const {
        dim3 block(TILE_DIM, BLOCK_ROWS);
        dim3 grid((cols + TILE_DIM - 1) / TILE_DIM, (rows + TILE_DIM - 1) / TILE_DIM);
        transpose_tiled<T><<<grid, block>>>(ptr, dst.ptr, rows, cols);
        CUDA_CHECK(cudaGetLastError());
    }

    int rows, cols;
    T* ptr = nullptr;
};

int main()
{
    const int R = 1000, C = 700;
    std::vector<float> h(R * C), back(R * C);
    for (int i = 0; i < R * C; ++i) h[i] = float(i);

    DeviceMatrix<float> a(R, C);
    DeviceMatrix<float> at(C, R);
    a.upload(h);
    a.transpose_into(at);
    a.download(back);

    std::printf("back[1] = %f (transposed value would be %f)\n", back[1], h[C]);
    return 0;
}
