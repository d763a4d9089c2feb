// case: an ocean model fills its managed wind-forcing table while the advection kernel runs; the table is allocated host-attached and only attached to the model stream around the kernel that reads it, then re-attached to the host and synchronized
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CUDA_CALL(x)                                                                      \
    do {                                                                                  \
        cudaError_t rc_ = (x);                                                            \
        if (rc_ != cudaSuccess) {                                                         \
            std::fprintf(stderr, "ocean: %s -> %s\n", #x, cudaGetErrorString(rc_));       \
            std::exit(1);                                                                 \
        }                                                                                 \
    } while (0)

struct WindForcing { float taux[720 * 360]; float tauy[720 * 360]; int day; };

__global__ void advect(const float* u, const float* v, const float* tracer, float* tracer_next, int nx, int ny, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y;
    if (i <= 0 || i >= nx - 1 || j <= 0 || j >= ny - 1) return;
    int c = j * nx + i;
    tracer_next[c] = tracer[c] - dt * (u[c] * (tracer[c + 1] - tracer[c - 1]) + v[c] * (tracer[c + nx] - tracer[c - nx])) * 0.5f;
}

__global__ void apply_wind(float* u, float* v, const WindForcing* f, int n, float dt) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n) return;
    u[c] += dt * f->taux[c];
    v[c] += dt * f->tauy[c];
}

static void read_reanalysis_day(WindForcing* f, int day) {
    f->day = day;
    for (int c = 0; c < 720 * 360; ++c) {
        f->taux[c] = 0.1f * std::sin(0.01f * c + day);
        f->tauy[c] = 0.05f * std::cos(0.02f * c - day);
    }
}

int main() {
    const int nx = 720, ny = 360, n = nx * ny;
    float *u, *v, *tr, *tr_next;
    CUDA_CALL(cudaMalloc(&u, n * sizeof(float)));
    CUDA_CALL(cudaMalloc(&v, n * sizeof(float)));
    CUDA_CALL(cudaMalloc(&tr, n * sizeof(float)));
    CUDA_CALL(cudaMalloc(&tr_next, n * sizeof(float)));
    CUDA_CALL(cudaMemset(u, 0, n * sizeof(float)));
    CUDA_CALL(cudaMemset(v, 0, n * sizeof(float)));
    CUDA_CALL(cudaMemset(tr, 0, n * sizeof(float)));
    CUDA_CALL(cudaMemset(tr_next, 0, n * sizeof(float)));

    WindForcing* forcing = nullptr;
    CUDA_CALL(cudaMallocManaged(&forcing, sizeof(WindForcing), cudaMemAttachHost));

    cudaStream_t model;
    CUDA_CALL(cudaStreamCreate(&model));
    CUDA_CALL(cudaDeviceSynchronize());

    const dim3 grid2d((nx + 127) / 128, ny);
    for (int day = 0; day < 30; ++day) {
        advect<<<grid2d, 128, 0, model>>>(u, v, tr, tr_next, nx, ny, 60.f);
        // host-attached: the CPU may fill it while the advection kernel runs
        read_reanalysis_day(forcing, day);

        CUDA_CALL(cudaStreamAttachMemAsync(model, forcing, 0, cudaMemAttachSingle));
        apply_wind<<<(n + 255) / 256, 256, 0, model>>>(u, v, forcing, n, 60.f);
        CUDA_CALL(cudaStreamAttachMemAsync(model, forcing, 0, cudaMemAttachHost));
        CUDA_CALL(cudaStreamSynchronize(model));
        float* t = tr; tr = tr_next; tr_next = t;
    }
    std::printf("ran 30 days, last forcing day %d\n", forcing->day);

    CUDA_CALL(cudaStreamDestroy(model));
    CUDA_CALL(cudaFree(forcing));
    CUDA_CALL(cudaFree(tr_next));
    CUDA_CALL(cudaFree(tr));
    CUDA_CALL(cudaFree(v));
    CUDA_CALL(cudaFree(u));
    return 0;
}
