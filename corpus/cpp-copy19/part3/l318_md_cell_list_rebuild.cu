// case: a molecular-dynamics loop rebuilds its cell index every REBUILD steps with a new cudaMalloc into the same pointer and frees only the last one after the loop
// expect: device_memory_leak=1
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define NPART 65536
#define BOX 32.0f
#define CELLS_PER_DIM 16
#define NCELLS (CELLS_PER_DIM * CELLS_PER_DIM * CELLS_PER_DIM)
#define STEPS 200
#define REBUILD 20

#define CUDA_CHECK(c) do { cudaError_t e = (c); if (e != cudaSuccess) { \
    fprintf(stderr, "%s\n", cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void assign_cells(const float4* pos, int* cell_of, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float inv = CELLS_PER_DIM / BOX;
    int cx = min((int)(pos[i].x * inv), CELLS_PER_DIM - 1);
    int cy = min((int)(pos[i].y * inv), CELLS_PER_DIM - 1);
    int cz = min((int)(pos[i].z * inv), CELLS_PER_DIM - 1);
    cell_of[i] = (cz * CELLS_PER_DIM + cy) * CELLS_PER_DIM + cx;
}

__global__ void drift(float4* pos, const int* cell_of, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float bias = (cell_of[i] % 2) ? 1.f : -1.f;
    float4 p = pos[i];
    p.x = fmodf(p.x + bias * dt + BOX, BOX);
    p.y = fmodf(p.y + 0.5f * dt + BOX, BOX);
    pos[i] = p;
}

int main() {
    std::vector<float4> h_pos(NPART);
    for (int i = 0; i < NPART; ++i)
        h_pos[i] = make_float4(BOX * (rand() / (float)RAND_MAX), BOX * (rand() / (float)RAND_MAX),
                               BOX * (rand() / (float)RAND_MAX), 1.f);

    float4* d_pos;
    int* d_cell_of = nullptr;
    CUDA_CHECK(cudaMalloc(&d_pos, NPART * sizeof(float4)));
    CUDA_CHECK(cudaMemcpy(d_pos, h_pos.data(), NPART * sizeof(float4), cudaMemcpyHostToDevice));

    const int tpb = 128, blocks = (NPART + tpb - 1) / tpb;
    for (int step = 0; step < STEPS; ++step) {
        if (step % REBUILD == 0) {
            CUDA_CHECK(cudaMalloc(&d_cell_of, NPART * sizeof(int))); // EXPECT: device_memory_leak
            assign_cells<<<blocks, tpb>>>(d_pos, d_cell_of, NPART);
        }
        drift<<<blocks, tpb>>>(d_pos, d_cell_of, NPART, 0.01f);
    }
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_pos.data(), d_pos, NPART * sizeof(float4), cudaMemcpyDeviceToHost));

    double cx = 0.0;
    for (const float4& p : h_pos) cx += p.x;
    printf("mean x after %d steps: %f\n", STEPS, cx / NPART);

    CUDA_CHECK(cudaFree(d_cell_of));
    CUDA_CHECK(cudaFree(d_pos));
    return 0;
}
