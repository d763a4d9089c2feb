// case: a radiative-transfer renderer updates a small stack parameter block right after its async upload (pageable, under 64 KiB, staged before the call returns) and reads each image after a blocking cudaMemcpy, which the legacy default stream orders after the kernel on the blocking stream
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x)                                                                   \
    do {                                                                                \
        cudaError_t e_ = (x);                                                           \
        if (e_ != cudaSuccess) {                                                        \
            std::fprintf(stderr, "rt: %s -> %s\n", #x, cudaGetErrorString(e_));         \
            std::exit(1);                                                               \
        }                                                                               \
    } while (0)

struct RayParams {
    float3 eye, forward, right, up;
    float step, kappa, emissivity;
    int width, height, max_steps;
};

constexpr int kGrid = 128;   // density cube, kGrid^3

__global__ void raymarch(const float* density, const RayParams* p, float* image) {
    int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= p->width || py >= p->height) return;
    float u = (px + 0.5f) / p->width - 0.5f, v = (py + 0.5f) / p->height - 0.5f;
    float3 d = make_float3(p->forward.x + u * p->right.x + v * p->up.x,
                           p->forward.y + u * p->right.y + v * p->up.y,
                           p->forward.z + u * p->right.z + v * p->up.z);
    float3 x = p->eye;
    float I = 0.f, tau = 0.f;
    for (int s = 0; s < p->max_steps; ++s) {
        int i = (int)x.x, j = (int)x.y, k = (int)x.z;
        if (i >= 0 && i < kGrid && j >= 0 && j < kGrid && k >= 0 && k < kGrid) {
            float rho = density[((size_t)k * kGrid + j) * kGrid + i];
            I += expf(-tau) * p->emissivity * rho * p->step;
            tau += p->kappa * rho * p->step;
        }
        x.x += d.x * p->step; x.y += d.y * p->step; x.z += d.z * p->step;
    }
    image[py * p->width + px] = I;
}

__global__ void plummer_sphere(float* density) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y, k = blockIdx.z;
    if (i >= kGrid) return;
    float r2 = (i - 64.f) * (i - 64.f) + (j - 64.f) * (j - 64.f) + (k - 64.f) * (k - 64.f);
    density[((size_t)k * kGrid + j) * kGrid + i] = powf(1.f + r2 / 100.f, -2.5f);
}

int main() {
    float *d_density = nullptr, *d_image = nullptr;
    RayParams* d_params = nullptr;
    const int W = 512, H = 512;
    CUDA_CHECK(cudaMalloc(&d_density, (size_t)kGrid * kGrid * kGrid * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_image, (size_t)W * H * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_params, sizeof(RayParams)));

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));     // blocking stream: synchronizes with the legacy default stream
    plummer_sphere<<<dim3(1, kGrid, kGrid), kGrid, 0, s>>>(d_density);

    RayParams params;
    params.step = 0.5f; params.kappa = 0.02f; params.emissivity = 1.f;
    params.width = W; params.height = H; params.max_steps = 600;
    std::vector<float> image((size_t)W * H);

    for (int view = 0; view < 4; ++view) {
        float ang = view * 3.14159265f / 2.f;
        params.eye = make_float3(64.f - 150.f * std::cos(ang), 64.f, 64.f - 150.f * std::sin(ang));
        params.forward = make_float3(std::cos(ang), 0.f, std::sin(ang));
        params.right = make_float3(-std::sin(ang) * 128.f, 0.f, std::cos(ang) * 128.f);
        params.up = make_float3(0.f, 128.f, 0.f);
        CUDA_CHECK(cudaMemcpyAsync(d_params, &params, sizeof(RayParams), cudaMemcpyHostToDevice, s));
        params.max_steps = 600 + 50 * (view + 1);   // next view marches further: safe, the block was staged
        raymarch<<<dim3(W / 16, H / 16), dim3(16, 16), 0, s>>>(d_density, d_params, d_image);
        CUDA_CHECK(cudaMemcpy(image.data(), d_image, image.size() * sizeof(float), cudaMemcpyDeviceToHost));
        double flux = 0.0;
        for (float v : image) flux += v;
        std::printf("view %d: total flux %.4e\n", view, flux);
    }

    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d_params));
    CUDA_CHECK(cudaFree(d_image));
    CUDA_CHECK(cudaFree(d_density));
    return 0;
}
