// case: weather-station gridding split over headers of the case: pinned and device buffers are RAII templates from pinned_buffer.h, and the host reads the gridded field only after the drain() helper from cuda_utils.h synchronizes the stream
// expect: none
#include "pinned_buffer.h"
#include "cuda_utils.h"

struct Station { float lat, lon, temp_c; };

__global__ void splat_stations(const Station* st, int n, float* grid_sum, float* grid_w, int nx, int ny) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int gx = min(nx - 1, max(0, static_cast<int>((st[i].lon + 180.0f) / 360.0f * nx)));
    int gy = min(ny - 1, max(0, static_cast<int>((st[i].lat + 90.0f) / 180.0f * ny)));
    atomicAdd(&grid_sum[gy * nx + gx], st[i].temp_c);
    atomicAdd(&grid_w[gy * nx + gx], 1.0f);
}

__global__ void normalize_grid(float* grid_sum, const float* grid_w, int cells) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < cells && grid_w[c] > 0.0f) grid_sum[c] /= grid_w[c];
}

int main() {
    const int n = 1 << 20, nx = 720, ny = 360, cells = nx * ny;
    cudaStream_t s = make_worker_stream();
    {
        PinnedBuffer<Station> h_st(n);
        PinnedBuffer<float> h_grid(cells);
        DeviceBuffer<Station> d_st(n);
        DeviceBuffer<float> d_sum(cells), d_w(cells);

        for (int i = 0; i < n; ++i)
            h_st[i] = Station{static_cast<float>(i % 180) - 90.0f, static_cast<float>(i % 360) - 180.0f, 15.0f + (i % 20)};

        CUDA_CHECK(cudaMemcpyAsync(d_st.get(), h_st.get(), h_st.bytes(), cudaMemcpyHostToDevice, s));
        CUDA_CHECK(cudaMemsetAsync(d_sum.get(), 0, d_sum.bytes(), s));
        CUDA_CHECK(cudaMemsetAsync(d_w.get(), 0, d_w.bytes(), s));
        splat_stations<<<(n + 255) / 256, 256, 0, s>>>(d_st.get(), n, d_sum.get(), d_w.get(), nx, ny);
        normalize_grid<<<(cells + 255) / 256, 256, 0, s>>>(d_sum.get(), d_w.get(), cells);
        CUDA_CHECK(cudaMemcpyAsync(h_grid.get(), d_sum.get(), h_grid.bytes(), cudaMemcpyDeviceToHost, s));
        drain(s);

        float warmest = -1e9f;
        for (int c = 0; c < cells; ++c) warmest = h_grid[c] > warmest ? h_grid[c] : warmest;
        std::printf("warmest cell %.2f C\n", warmest);
    }
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}
