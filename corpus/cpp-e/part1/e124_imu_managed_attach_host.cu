// case: A sensor-fusion loop allocates its IMU batch with cudaMallocManaged(..., cudaMemAttachHost), fills it on the host while an unrelated filter kernel runs (legal even without concurrent managed access), then attaches it to the stream before the kernel that reads it and synchronizes before reading results.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s -> %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

constexpr int kLidarPts = 1 << 20;
constexpr int kImuSamples = 4096;

struct ImuSample { float ax, ay, az, gx, gy, gz; double t; };

__global__ void voxel_filter(const float4* in, float4* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = in[i];
    out[i] = make_float4(floorf(p.x * 10.f) / 10.f, floorf(p.y * 10.f) / 10.f, floorf(p.z * 10.f) / 10.f, p.w);
}

__global__ void integrate_imu(const ImuSample* imu, int n, float3* pose)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    float3 v = make_float3(0.f, 0.f, 0.f), x = v;
    for (int i = 1; i < n; ++i) {
        float dt = (float)(imu[i].t - imu[i - 1].t);
        v.x += imu[i].ax * dt; v.y += imu[i].ay * dt; v.z += imu[i].az * dt;
        x.x += v.x * dt; x.y += v.y * dt; x.z += v.z * dt;
    }
    *pose = x;
}

int main()
{
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    float4 *d_cloud, *d_filtered;
    float3* pose = nullptr;
    ImuSample* imu = nullptr;
    CUDA_CHECK(cudaMalloc(&d_cloud, kLidarPts * sizeof(float4)));
    CUDA_CHECK(cudaMalloc(&d_filtered, kLidarPts * sizeof(float4)));
    CUDA_CHECK(cudaMallocManaged(&imu, kImuSamples * sizeof(ImuSample), cudaMemAttachHost));
    CUDA_CHECK(cudaMallocManaged(&pose, sizeof(float3), cudaMemAttachHost));
    CUDA_CHECK(cudaMemsetAsync(d_cloud, 0, kLidarPts * sizeof(float4), s));

    voxel_filter<<<kLidarPts / 256, 256, 0, s>>>(d_cloud, d_filtered, kLidarPts);
    CUDA_CHECK(cudaGetLastError());

    // host-attached: no kernel can touch these pages, so the CPU may write them now
    for (int i = 0; i < kImuSamples; ++i) {
        imu[i].ax = 0.01f * (i % 10); imu[i].ay = 0.f; imu[i].az = -9.81f + 9.81f;
        imu[i].gx = imu[i].gy = imu[i].gz = 0.f;
        imu[i].t = i * 0.005;
    }

    CUDA_CHECK(cudaStreamAttachMemAsync(s, imu, 0, cudaMemAttachSingle));
    CUDA_CHECK(cudaStreamAttachMemAsync(s, pose, 0, cudaMemAttachSingle));
    integrate_imu<<<1, 32, 0, s>>>(imu, kImuSamples, pose);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamSynchronize(s));

    std::printf("pose after %d IMU samples: (%f, %f, %f)\n", kImuSamples, pose->x, pose->y, pose->z);

    CUDA_CHECK(cudaFree(pose));
    CUDA_CHECK(cudaFree(imu));
    CUDA_CHECK(cudaFree(d_filtered));
    CUDA_CHECK(cudaFree(d_cloud));
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}
