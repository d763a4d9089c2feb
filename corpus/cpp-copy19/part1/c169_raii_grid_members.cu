// case: RAII DeviceGrid class that allocates its density and temperature arrays in the constructor and frees them in the destructor; methods copy and launch on the members
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t e = (call);                                             \
        if (e != cudaSuccess) {                                             \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            std::exit(EXIT_FAILURE);                                        \
        }                                                                   \
    } while (0)

constexpr int NX = 256, NY = 256;
constexpr size_t kCells = size_t(NX) * NY;

__global__ void buoyancy(const float *density, float *temperature, float dt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < int(kCells)) temperature[i] += dt * (0.5f - density[i]);
}

class DeviceGrid {
public:
    DeviceGrid() {
        CUDA_CHECK(cudaMalloc(&density_, kCells * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&temperature_, kCells * sizeof(float)));
        CUDA_CHECK(cudaMemset(temperature_, 0, kCells * sizeof(float)));
    }
    ~DeviceGrid() {
        cudaFree(density_);
        cudaFree(temperature_);
    }
    DeviceGrid(const DeviceGrid &) = delete;
    DeviceGrid &operator=(const DeviceGrid &) = delete;

    void upload_density(const std::vector<float> &h) {
        CUDA_CHECK(cudaMemcpy(density_, h.data(), kCells * sizeof(float), cudaMemcpyHostToDevice));
    }
    void step(float dt) {
        buoyancy<<<(kCells + 255) / 256, 256>>>(density_, temperature_, dt);
        CUDA_CHECK(cudaGetLastError());
    }
    void download_temperature(std::vector<float> &h) const {
        CUDA_CHECK(cudaMemcpy(h.data(), temperature_, kCells * sizeof(float), cudaMemcpyDeviceToHost));
    }

private:
    float *density_ = nullptr;
    float *temperature_ = nullptr;
};

int main()
{
    std::vector<float> dens(kCells), temp(kCells);
    for (size_t i = 0; i < kCells; ++i) dens[i] = (i % NX) < NX / 2 ? 1.0f : 0.0f;

    DeviceGrid grid;
    grid.upload_density(dens);
    for (int s = 0; s < 100; ++s) grid.step(0.01f);
    grid.download_temperature(temp);

    std::printf("T(left) = %f, T(right) = %f\n", temp[10], temp[NX - 10]);
    return 0;
}
