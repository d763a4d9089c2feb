// case: sensor-fusion step that attaches its managed calibration table to the fusion stream (cudaMemAttachSingle) and later adjusts it from the host while a timestamp-alignment kernel, which does not read the table, is running on that same stream: memory associated with a stream may be touched by the host only while that stream is idle.
// expect: managed_concurrent_access=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t e_ = (call);                                                  \
        if (e_ != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

constexpr int kSensors = 8;

struct Calib {
    float bias[3];
    float scale[3];
    double offset_s;
};

__global__ void fuse(const float3* meas, const int* sensor_of, const Calib* calib, float3* state, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const Calib& c = calib[sensor_of[i]];
    float3 m = meas[i];
    state[i] = make_float3((m.x - c.bias[0]) * c.scale[0], (m.y - c.bias[1]) * c.scale[1],
                           (m.z - c.bias[2]) * c.scale[2]);
}

__global__ void align_stamps(double* stamps, int n, double period)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) stamps[i] = period * (long long)(stamps[i] / period + 0.5);
}

class FusionStage {
public:
    explicit FusionStage(int n) : n_(n)
    {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMallocManaged(&calib_, kSensors * sizeof(Calib)));
        CUDA_CHECK(cudaStreamAttachMemAsync(stream_, calib_, 0, cudaMemAttachSingle));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        for (int s = 0; s < kSensors; ++s) // stream idle: allowed
            calib_[s] = Calib{{0.01f * s, 0.f, 0.f}, {1.f, 1.f, 1.f}, 0.0};
        CUDA_CHECK(cudaMalloc(&d_meas_, n * sizeof(float3)));
        CUDA_CHECK(cudaMalloc(&d_sensor_, n * sizeof(int)));
        CUDA_CHECK(cudaMalloc(&d_state_, n * sizeof(float3)));
        CUDA_CHECK(cudaMalloc(&d_stamps_, n * sizeof(double)));
        CUDA_CHECK(cudaMemsetAsync(d_meas_, 0, n * sizeof(float3), stream_));
        CUDA_CHECK(cudaMemsetAsync(d_sensor_, 0, n * sizeof(int), stream_));
        CUDA_CHECK(cudaMemsetAsync(d_stamps_, 0, n * sizeof(double), stream_));
    }
    ~FusionStage()
    {
        cudaStreamSynchronize(stream_);
        cudaFree(calib_); cudaFree(d_meas_); cudaFree(d_sensor_); cudaFree(d_state_); cudaFree(d_stamps_);
        cudaStreamDestroy(stream_);
    }

    void step(float drift)
    {
        fuse<<<(n_ + 255) / 256, 256, 0, stream_>>>(d_meas_, d_sensor_, calib_, d_state_, n_);
        CUDA_CHECK(cudaStreamSynchronize(stream_));

        align_stamps<<<(n_ + 255) / 256, 256, 0, stream_>>>(d_stamps_, n_, 0.01);
        // "the aligner does not read the calibration, so it is safe to update it now"
        calib_[0].bias[0] += drift; // EXPECT: managed_concurrent_access
        calib_[0].offset_s += 1e-4;
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

private:
    int n_;
    cudaStream_t stream_ = nullptr;
    Calib* calib_ = nullptr;
    float3 *d_meas_ = nullptr, *d_state_ = nullptr;
    int* d_sensor_ = nullptr;
    double* d_stamps_ = nullptr;
};

int main()
{
    FusionStage stage(1 << 20);
    for (int k = 0; k < 3; ++k) stage.step(0.001f);
    printf("fusion: 3 steps done\n");
    return 0;
}
