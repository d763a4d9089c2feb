// case: an NWP model initialises its terrain height on the host by writing through the field pointer; in the default build (WX_USE_MANAGED is only a comment in the header) that pointer comes from cudaMalloc, so the host writes device memory
// expect: host_deref_device_ptr=1
#include "wx_fields.h"
#include <cmath>

__global__ void init_column(float* theta, float* qv, const float* zsfc, int nx, int ny, int nz, float dz) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y;
    if (i >= nx || j >= ny) return;
    float z0 = zsfc[j * nx + i];
    for (int k = 0; k < nz; ++k) {
        float z = z0 + (k + 0.5f) * dz;
        size_t c = ((size_t)k * ny + j) * nx + i;
        theta[c] = 300.f + 0.004f * z;             // stable lapse rate
        qv[c] = 0.014f * expf(-z / 2500.f);
    }
}

// Analytic bell-shaped mountain (Witch of Agnesi), centred in the domain.
static void set_terrain(WxFields& f, float dx, float h0, float a) {
    for (int j = 0; j < f.ny; ++j)
        for (int i = 0; i < f.nx; ++i) {
            float x = (i - f.nx / 2) * dx, y = (j - f.ny / 2) * dx;
            f.zsfc[(size_t)j * f.nx + i] = h0 / (1.f + (x * x + y * y) / (a * a)); // EXPECT: host_deref_device_ptr
        }
}

static double column_mean_theta(const WxFields& f) {
    std::size_t n3 = (size_t)f.nx * f.ny * f.nz;
    float* h = static_cast<float*>(std::malloc(n3 * sizeof(float)));
    WX_CUDA(cudaMemcpy(h, f.theta, n3 * sizeof(float), cudaMemcpyDeviceToHost));
    double s = 0.0;
    for (size_t c = 0; c < n3; c += 1013) s += h[c];
    std::free(h);
    return s / ((n3 + 1012) / 1013);
}

int main() {
    WxFields f;
    wx_fields_create(f, 400, 400, 80);
    set_terrain(f, 1000.f, 1500.f, 10000.f);

    init_column<<<dim3((f.nx + 127) / 128, f.ny), 128>>>(f.theta, f.qv, f.zsfc, f.nx, f.ny, f.nz, 250.f);
    WX_CUDA(cudaGetLastError());
    WX_CUDA(cudaDeviceSynchronize());
    std::printf("initial mean theta %.2f K\n", column_mean_theta(f));

    wx_fields_destroy(f);
    return 0;
}
