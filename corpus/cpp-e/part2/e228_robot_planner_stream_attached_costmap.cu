// case: a robot motion planner attaches its managed waypoint buffer to the host-side planning stream with cudaStreamAttachMemAsync(cudaMemAttachSingle), waits for that stream, and then rewrites the waypoints on the host while the costmap kernel (which never touches them) runs on another stream: memory attached to an idle stream is the host's, so this is legal even without concurrent managed access.
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)

constexpr int kGrid = 2048;
constexpr int kWaypoints = 4096;

struct Waypoint { float x, y, heading, speed; };

__global__ void inflate_costmap(const unsigned char* occupancy, float* cost, int w) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= w) return;
    float c = 0.f;
    for (int dy = -3; dy <= 3; ++dy)
        for (int dx = -3; dx <= 3; ++dx) {
            int xx = min(max(x + dx, 0), w - 1), yy = min(max(y + dy, 0), w - 1);
            c = fmaxf(c, occupancy[yy * w + xx] / (1.f + dx * dx + dy * dy));
        }
    cost[y * w + x] = c;
}

__global__ void score_path(const Waypoint* path, int n, const float* cost, int w, float* total) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int cx = min(max(int(path[i].x), 0), w - 1), cy = min(max(int(path[i].y), 0), w - 1);
    atomicAdd(total, cost[cy * w + cx]);
}

class Planner {
public:
    Planner() {
        CUDA_CHECK(cudaStreamCreateWithFlags(&perception_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaStreamCreateWithFlags(&planning_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_occ_, kGrid * kGrid));
        CUDA_CHECK(cudaMalloc(&d_cost_, sizeof(float) * kGrid * kGrid));
        CUDA_CHECK(cudaMallocManaged(&path_, sizeof(Waypoint) * kWaypoints));
        CUDA_CHECK(cudaMallocManaged(&total_, sizeof(float)));
        CUDA_CHECK(cudaStreamAttachMemAsync(planning_, path_, 0, cudaMemAttachSingle));
        CUDA_CHECK(cudaStreamAttachMemAsync(planning_, total_, 0, cudaMemAttachSingle));
        CUDA_CHECK(cudaStreamSynchronize(planning_));   // attachments take effect
        CUDA_CHECK(cudaMemsetAsync(d_occ_, 0, kGrid * kGrid, perception_));
    }
    ~Planner() {
        cudaDeviceSynchronize();
        cudaFree(total_);
        cudaFree(path_);
        cudaFree(d_cost_);
        cudaFree(d_occ_);
        cudaStreamDestroy(planning_);
        cudaStreamDestroy(perception_);
    }

    float cycle(float goal_heading) {
        inflate_costmap<<<dim3(kGrid / 128, kGrid), 128, 0, perception_>>>(d_occ_, d_cost_, kGrid);
        // overlap: planning_ is idle, so its attached memory belongs to the host
        for (int i = 0; i < kWaypoints; ++i) {
            float t = float(i) / kWaypoints;
            path_[i] = Waypoint{1024.f + 900.f * t * std::cos(goal_heading), 1024.f + 900.f * t * std::sin(goal_heading),
                                goal_heading, 1.5f};
        }
        *total_ = 0.f;
        CUDA_CHECK(cudaStreamSynchronize(perception_));    // costmap ready
        score_path<<<kWaypoints / 256, 256, 0, planning_>>>(path_, kWaypoints, d_cost_, kGrid, total_);
        CUDA_CHECK(cudaStreamSynchronize(planning_));
        return *total_;
    }

private:
    cudaStream_t perception_{}, planning_{};
    unsigned char* d_occ_ = nullptr;
    float* d_cost_ = nullptr;
    Waypoint* path_ = nullptr;
    float* total_ = nullptr;
};

int main() {
    Planner planner;
    for (int k = 0; k < 8; ++k) std::printf("heading %d cost %.3f\n", k, planner.cycle(0.785f * k));
    return 0;
}
