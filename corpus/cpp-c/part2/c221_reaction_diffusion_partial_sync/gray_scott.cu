// case: a Gray-Scott reaction-diffusion code keeps species U in managed memory and V in device memory, steps them on two streams, synchronizes only U's stream and then reads U on the host while V's kernel (which never touches U) may still run
// expect: managed_concurrent_access=1
#include "managed_grid.cuh"
#include <utility>

__global__ void step_u(float* u, const float* v_prev, int nx, int ny, float du, float feed) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x <= 0 || x >= nx - 1 || y <= 0 || y >= ny - 1) return;
    size_t c = (size_t)y * nx + x;
    float lap = u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx] - 4.f * u[c];
    u[c] += du * lap - u[c] * v_prev[c] * v_prev[c] + feed * (1.f - u[c]);
}

__global__ void step_v(float* v, float* v_prev, int nx, int ny, float dv, float kill) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x <= 0 || x >= nx - 1 || y <= 0 || y >= ny - 1) return;
    size_t c = (size_t)y * nx + x;
    float lap = v_prev[c - 1] + v_prev[c + 1] + v_prev[c - nx] + v_prev[c + nx] - 4.f * v_prev[c];
    v[c] = v_prev[c] + dv * lap - (kill + 0.06f) * v_prev[c];
}

int main() {
    const int nx = 1024, ny = 1024;
    ManagedGrid u(nx, ny);
    DeviceField v(u.cells()), v_prev(u.cells());
    for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x) u.at(x, y) = 1.0f;
    check(cudaMemset(v.p, 0, u.bytes()), "memset v");
    check(cudaMemset(v_prev.p, 0, u.bytes()), "memset v_prev");
    check(cudaDeviceSynchronize(), "init");

    cudaStream_t su, sv;
    check(cudaStreamCreateWithFlags(&su, cudaStreamNonBlocking), "stream u");
    check(cudaStreamCreateWithFlags(&sv, cudaStreamNonBlocking), "stream v");
    const dim3 grid((nx + 127) / 128, ny);

    for (int it = 0; it < 1000; ++it) {
        step_u<<<grid, 128, 0, su>>>(u.data(), v_prev.p, nx, ny, 0.16f, 0.035f);
        step_v<<<grid, 128, 0, sv>>>(v.p, v_prev.p, nx, ny, 0.08f, 0.065f);
        if (it % 100 == 99) {
            check(cudaStreamSynchronize(su), "sync u");
            double mass = 0.0;
            for (size_t c = 0; c < u.cells(); c += 64) mass += u.data()[c]; // EXPECT: managed_concurrent_access
            std::printf("iter %d: mean U %.5f\n", it + 1, mass / (u.cells() / 64));
        }
        check(cudaDeviceSynchronize(), "step");
        std::swap(v.p, v_prev.p);
    }
    return 0;
}
