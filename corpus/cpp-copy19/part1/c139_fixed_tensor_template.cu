// case: small fixed-shape tensor template (std::array host side, device mirror sized N*sizeof(T)) used for a 3x3 camera intrinsics matrix and a 5-term distortion vector; every copy is N*sizeof(T)
// expect: none
#include <array>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

inline void cuda_ok(cudaError_t e, const char *file, int line)
{
    if (e != cudaSuccess) {
        std::fprintf(stderr, "%s:%d %s\n", file, line, cudaGetErrorString(e));
        std::exit(EXIT_FAILURE);
    }
}
#define CUDA_OK(x) cuda_ok((x), __FILE__, __LINE__)

template <typename T, std::size_t N>
struct MirroredTensor {
    std::array<T, N> host{};
    T *device = nullptr;

    MirroredTensor() { CUDA_OK(cudaMalloc(&device, N * sizeof(T))); }
    ~MirroredTensor() { cudaFree(device); }
    MirroredTensor(const MirroredTensor &) = delete;
    MirroredTensor &operator=(const MirroredTensor &) = delete;

    void push() { CUDA_OK(cudaMemcpy(device, host.data(), N * sizeof(T), cudaMemcpyHostToDevice)); }
    void pull() { CUDA_OK(cudaMemcpy(host.data(), device, N * sizeof(T), cudaMemcpyDeviceToHost)); }
};

constexpr int kPts = 100000;

__global__ void undistort(const float2 *in, float2 *out, const float *K, const float *dist, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = (in[i].x - K[2]) / K[0];
    float y = (in[i].y - K[5]) / K[4];
    float r2 = x * x + y * y;
    float radial = 1.f + dist[0] * r2 + dist[1] * r2 * r2 + dist[4] * r2 * r2 * r2;
    float xd = x * radial + 2.f * dist[2] * x * y + dist[3] * (r2 + 2.f * x * x);
    float yd = y * radial + dist[2] * (r2 + 2.f * y * y) + 2.f * dist[3] * x * y;
    out[i] = make_float2(xd * K[0] + K[2], yd * K[4] + K[5]);
}

int main()
{
    MirroredTensor<float, 9> K;
    MirroredTensor<float, 5> dist;
    K.host = {800.f, 0.f, 640.f, 0.f, 800.f, 360.f, 0.f, 0.f, 1.f};
    dist.host = {-0.28f, 0.07f, 0.0002f, -0.0001f, 0.f};
    K.push();
    dist.push();

    float2 *h_pts = new float2[kPts];
    for (int i = 0; i < kPts; ++i) h_pts[i] = make_float2(float(i % 1280), float(i / 1280 % 720));

    float2 *d_in, *d_out;
    CUDA_OK(cudaMalloc(&d_in, kPts * sizeof(float2)));
    CUDA_OK(cudaMalloc(&d_out, kPts * sizeof(float2)));
    CUDA_OK(cudaMemcpy(d_in, h_pts, kPts * sizeof(float2), cudaMemcpyHostToDevice));
    undistort<<<(kPts + 255) / 256, 256>>>(d_in, d_out, K.device, dist.device, kPts);
    CUDA_OK(cudaMemcpy(h_pts, d_out, kPts * sizeof(float2), cudaMemcpyDeviceToHost));

    K.pull();
    std::printf("pt0 -> (%f, %f), fx=%f\n", h_pts[0].x, h_pts[0].y, K.host[0]);

    CUDA_OK(cudaFree(d_in));
    CUDA_OK(cudaFree(d_out));
    delete[] h_pts;
    return 0;
}
