// case: a weather-model halo exchanger packs the east/west halos on its stream and copies them into pinned memory, then memcpy's the pinned halo into the send buffer before synchronizing the stream
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUDA_CHECK(call)                                                      \
    do {                                                                      \
        cudaError_t err_ = (call);                                            \
        if (err_ != cudaSuccess) {                                            \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,           \
                         cudaGetErrorString(err_));                           \
            std::exit(EXIT_FAILURE);                                          \
        }                                                                     \
    } while (0)

// Packs the two outermost interior columns of every level into a contiguous halo.
__global__ void pack_ew_halo(const float* field, float* halo, int nx, int ny, int nz, int width) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int k = blockIdx.y;
    if (j >= ny || k >= nz) return;
    for (int w = 0; w < width; ++w) {
        size_t row = (size_t)k * ny * nx + (size_t)j * nx;
        halo[((size_t)k * ny + j) * 2 * width + w]         = field[row + width + w];
        halo[((size_t)k * ny + j) * 2 * width + width + w] = field[row + nx - 2 * width + w];
    }
}

class HaloExchanger {
public:
    HaloExchanger(int nx, int ny, int nz, int width)
        : nx_(nx), ny_(ny), nz_(nz), width_(width),
          count_((size_t)ny * nz * 2 * width), send_buf_(count_) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_halo_, count_ * sizeof(float)));
        CUDA_CHECK(cudaMallocHost(&h_halo_, count_ * sizeof(float)));
    }
    ~HaloExchanger() {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(h_halo_);
        cudaFree(d_halo_);
        cudaStreamDestroy(stream_);
    }

    // Starts the exchange for one time step; the neighbour's halo is unpacked in finish().
    void begin(const float* d_field) {
        dim3 block(128), grid((ny_ + 127) / 128, nz_);
        pack_ew_halo<<<grid, block, 0, stream_>>>(d_field, d_halo_, nx_, ny_, nz_, width_);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_halo_, d_halo_, count_ * sizeof(float),
                                   cudaMemcpyDeviceToHost, stream_));
        // hand the packed halo to the transport layer right away
        std::memcpy(send_buf_.data(), h_halo_, count_ * sizeof(float)); // EXPECT: missing_sync
        post_send(send_buf_.data(), count_);
    }

    void finish() {
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        ++steps_;
    }

    int steps() const { return steps_; }

private:
    void post_send(const float* buf, size_t n) {
        // stand-in for MPI_Isend to the east/west neighbour
        double checksum = 0.0;
        for (size_t i = 0; i < n; i += 97) checksum += buf[i];
        last_checksum_ = checksum;
    }

    int nx_, ny_, nz_, width_;
    size_t count_;
    std::vector<float> send_buf_;
    cudaStream_t stream_ = nullptr;
    float* d_halo_ = nullptr;
    float* h_halo_ = nullptr;
    double last_checksum_ = 0.0;
    int steps_ = 0;
};

int main() {
    const int nx = 512, ny = 384, nz = 60;
    float* d_field = nullptr;
    CUDA_CHECK(cudaMalloc(&d_field, (size_t)nx * ny * nz * sizeof(float)));
    CUDA_CHECK(cudaMemset(d_field, 0, (size_t)nx * ny * nz * sizeof(float)));
    CUDA_CHECK(cudaDeviceSynchronize());

    HaloExchanger halo(nx, ny, nz, 2);
    for (int step = 0; step < 10; ++step) {
        halo.begin(d_field);
        halo.finish();
    }
    std::printf("exchanged %d halos\n", halo.steps());
    CUDA_CHECK(cudaFree(d_field));
    return 0;
}
