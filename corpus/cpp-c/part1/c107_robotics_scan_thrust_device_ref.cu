// case: a laser-scan matcher keeps ranges in a thrust::device_vector, gives the raw pointer only to its kernel, and on the host reads elements through the vector's operator[] (a device_reference that copies), thrust::min_element and a host_vector copy, all after synchronizing its stream; no raw device pointer is dereferenced on the host.
// expect: none
#include <cuda_runtime.h>
#include <thrust/device_vector.h>
#include <thrust/extrema.h>
#include <thrust/host_vector.h>
#include <cmath>
#include <cstdio>

constexpr int kBeams = 1081;           // 270 degrees at 0.25 degree steps
constexpr float kAngleMin = -2.356194f;
constexpr float kAngleInc = 0.004363323f;

struct Pose2D { float x, y, theta; };

// Ray-cast a rectangular room (walls at |x| = 5, |y| = 3) from the robot pose.
__global__ void raycast_room(Pose2D pose, float* ranges, int beams) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= beams) return;
    float a = pose.theta + kAngleMin + b * kAngleInc;
    float dx = cosf(a), dy = sinf(a);
    float tx = dx > 0 ? (5.f - pose.x) / dx : dx < 0 ? (-5.f - pose.x) / dx : 1e9f;
    float ty = dy > 0 ? (3.f - pose.y) / dy : dy < 0 ? (-3.f - pose.y) / dy : 1e9f;
    ranges[b] = fminf(tx, ty);
}

class ScanSimulator {
public:
    ScanSimulator() : ranges_(kBeams, 0.f) { cudaStreamCreate(&stream_); }
    ~ScanSimulator() { cudaStreamDestroy(stream_); }

    void simulate(const Pose2D& pose) {
        float* d_ranges = thrust::raw_pointer_cast(ranges_.data());
        raycast_room<<<(kBeams + 255) / 256, 256, 0, stream_>>>(pose, d_ranges, kBeams);
        cudaStreamSynchronize(stream_);
    }

    float range_at(int beam) const { return ranges_[beam]; }   // device_reference -> copy to host

    int closest_beam() const {
        auto it = thrust::min_element(ranges_.begin(), ranges_.end());
        return static_cast<int>(it - ranges_.begin());
    }

    thrust::host_vector<float> download() const { return ranges_; }

private:
    thrust::device_vector<float> ranges_;
    cudaStream_t stream_{};
};

int main() {
    ScanSimulator sim;
    sim.simulate(Pose2D{1.0f, -0.5f, 0.3f});

    const int ahead = kBeams / 2;
    std::printf("range straight ahead: %.3f m\n", sim.range_at(ahead));
    const int nearest = sim.closest_beam();
    std::printf("closest return at beam %d: %.3f m\n", nearest, sim.range_at(nearest));

    thrust::host_vector<float> scan = sim.download();
    int valid = 0;
    for (float r : scan) valid += std::isfinite(r) && r < 30.f;
    std::printf("%d valid returns\n", valid);
    return 0;
}
