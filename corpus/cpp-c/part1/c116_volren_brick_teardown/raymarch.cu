// case: a volume renderer keeps its density bricks in a VolumeBrickPool (header) whose destructor synchronizes and then calls cuMemAddressFree on the reservation before cuMemUnmap, freeing a range that is still mapped when the pool goes out of scope at the end of render_turntable().
// expect: vmm_lifecycle=1
#include "volume_brick.cuh"
#include <cmath>
#include <memory>

__global__ void fill_sphere(uint8_t* brick, int dim, float radius) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
    if (x >= dim) return;
    float cx = x - dim * 0.5f, cy = y - dim * 0.5f, cz = z - dim * 0.5f;
    brick[(static_cast<size_t>(z) * dim + y) * dim + x] = sqrtf(cx * cx + cy * cy + cz * cz) < radius ? 200 : 0;
}

__global__ void raymarch_ortho(const uint8_t* brick, int dim, float* image) {
    int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y;
    if (px >= dim) return;
    float transmittance = 1.f, radiance = 0.f;
    for (int z = 0; z < dim && transmittance > 0.01f; ++z) {
        float sigma = brick[(static_cast<size_t>(z) * dim + py) * dim + px] * (1.f / 255.f) * 0.05f;
        radiance += transmittance * sigma;
        transmittance *= expf(-sigma);
    }
    image[py * dim + px] = radiance;
}

static float render_turntable(int dim) {
    VolumeBrickPool pool(4, static_cast<size_t>(dim) * dim * dim, 0);
    float* d_image = nullptr;
    cudaMalloc(&d_image, static_cast<size_t>(dim) * dim * sizeof(float));

    dim3 block(128), grid((dim + 127) / 128, dim, dim);
    for (int b = 0; b < pool.count(); ++b) fill_sphere<<<grid, block>>>(pool.brick(b), dim, dim * (0.2f + 0.05f * b));

    float sum = 0.f;
    std::unique_ptr<float[]> image(new float[static_cast<size_t>(dim) * dim]);
    for (int b = 0; b < pool.count(); ++b) {
        raymarch_ortho<<<dim3((dim + 127) / 128, dim), block>>>(pool.brick(b), dim, d_image);
        cudaMemcpy(image.get(), d_image, static_cast<size_t>(dim) * dim * sizeof(float), cudaMemcpyDeviceToHost);
        sum += image[(dim / 2) * dim + dim / 2];
    }
    cudaFree(d_image);
    return sum;  // ~VolumeBrickPool runs here
}

int main() {
    cudaSetDevice(0);
    cudaFree(nullptr);
    cuInit(0);
    std::printf("center radiance sum: %.4f\n", render_turntable(128));
    return 0;
}
