// case: a lidar PointCloudGpu class keeps its points in cudaMalloc'd memory; its debug centroid() method, called after a synchronize, walks this->d_points_ on the host, dereferencing device memory.
// expect: host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#define CUDA_CHECK(x)                                                               \
    do {                                                                            \
        cudaError_t e_ = (x);                                                       \
        if (e_ != cudaSuccess) {                                                    \
            std::fprintf(stderr, "%s failed: %s\n", #x, cudaGetErrorString(e_));    \
            std::abort();                                                           \
        }                                                                           \
    } while (0)

struct Pose { float r[9]; float t[3]; };

__global__ void transform_points(float3* pts, int n, Pose pose) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float3 p = pts[i];
    pts[i] = make_float3(pose.r[0] * p.x + pose.r[1] * p.y + pose.r[2] * p.z + pose.t[0],
                         pose.r[3] * p.x + pose.r[4] * p.y + pose.r[5] * p.z + pose.t[1],
                         pose.r[6] * p.x + pose.r[7] * p.y + pose.r[8] * p.z + pose.t[2]);
}

class PointCloudGpu {
public:
    explicit PointCloudGpu(const std::vector<float3>& scan) : n_(static_cast<int>(scan.size())) {
        CUDA_CHECK(cudaMalloc(&d_points_, n_ * sizeof(float3)));
        CUDA_CHECK(cudaMemcpy(d_points_, scan.data(), n_ * sizeof(float3), cudaMemcpyHostToDevice));
    }
    ~PointCloudGpu() { cudaFree(d_points_); }
    PointCloudGpu(const PointCloudGpu&) = delete;
    PointCloudGpu& operator=(const PointCloudGpu&) = delete;

    void to_world(const Pose& pose, cudaStream_t s) {
        transform_points<<<(n_ + 127) / 128, 128, 0, s>>>(d_points_, n_, pose);
        CUDA_CHECK(cudaGetLastError());
    }

    // Quick sanity check used by the calibration tool.
    float3 centroid() const {
        float3 c = make_float3(0.f, 0.f, 0.f);
        for (int i = 0; i < n_; ++i) {
            const float3& p = this->d_points_[i];  // EXPECT: host_deref_device_ptr
            c.x += p.x; c.y += p.y; c.z += p.z;
        }
        return make_float3(c.x / n_, c.y / n_, c.z / n_);
    }

    int size() const { return n_; }

private:
    int n_;
    float3* d_points_ = nullptr;
};

static std::unique_ptr<PointCloudGpu> load_scan(int beams, int rings) {
    std::vector<float3> scan;
    scan.reserve(static_cast<size_t>(beams) * rings);
    for (int r = 0; r < rings; ++r)
        for (int b = 0; b < beams; ++b)
            scan.push_back(make_float3(0.01f * b, 0.02f * r, 1.5f));
    return std::make_unique<PointCloudGpu>(scan);
}

int main() {
    auto cloud = load_scan(2048, 64);
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    Pose base_link{{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0.2f, 0.f, 1.1f}};
    cloud->to_world(base_link, s);
    CUDA_CHECK(cudaStreamSynchronize(s));
    float3 c = cloud->centroid();
    std::printf("%d points, centroid (%.3f, %.3f, %.3f)\n", cloud->size(), c.x, c.y, c.z);
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}
