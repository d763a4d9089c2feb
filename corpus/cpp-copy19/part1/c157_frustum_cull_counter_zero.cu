// case: frustum-culling pass on a stream whose visible-object counter is declared `unsigned int *d_visible = 0;` and never allocated; the async clear, the culling kernel's atomicAdd and the async readback use null
// expect: unallocated_pointer=3
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t err = (call);                                           \
        if (err != cudaSuccess) {                                           \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err)); \
            std::exit(1);                                                   \
        }                                                                   \
    } while (0)

#define NUM_OBJECTS 100000

struct Sphere { float x, y, z, r; };
struct Plane { float nx, ny, nz, d; };

__constant__ Plane c_frustum[6];

__global__ void cull(const Sphere *objs, int n, unsigned int *visible_count, unsigned char *visible)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Sphere s = objs[i];
    bool in = true;
    for (int p = 0; p < 6; ++p) {
        const Plane &pl = c_frustum[p];
        if (pl.nx * s.x + pl.ny * s.y + pl.nz * s.z + pl.d < -s.r) { in = false; break; }
    }
    visible[i] = in;
    if (in) atomicAdd(visible_count, 1u);
}

int main()
{
    Plane planes[6] = {{1, 0, 0, 50}, {-1, 0, 0, 50}, {0, 1, 0, 50}, {0, -1, 0, 50}, {0, 0, 1, 0}, {0, 0, -1, 200}};
    CUDA_CHECK(cudaMemcpyToSymbol(c_frustum, planes, sizeof(planes)));

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));

    Sphere *h_objs;
    unsigned char *h_visible;
    unsigned int *h_count;
    CUDA_CHECK(cudaMallocHost(&h_objs, NUM_OBJECTS * sizeof(Sphere)));
    CUDA_CHECK(cudaMallocHost(&h_visible, NUM_OBJECTS));
    CUDA_CHECK(cudaMallocHost(&h_count, sizeof(unsigned int)));
    for (int i = 0; i < NUM_OBJECTS; ++i)
        h_objs[i] = Sphere{float(i % 200) - 100.f, float((i / 200) % 200) - 100.f, float(i % 300), 1.f};

    Sphere *d_objs;
    unsigned char *d_visible;
    unsigned int *d_visible_count = 0;
    CUDA_CHECK(cudaMalloc(&d_objs, NUM_OBJECTS * sizeof(Sphere)));
    CUDA_CHECK(cudaMalloc(&d_visible, NUM_OBJECTS));

    CUDA_CHECK(cudaMemcpyAsync(d_objs, h_objs, NUM_OBJECTS * sizeof(Sphere), cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemsetAsync(d_visible_count, 0, sizeof(unsigned int), stream)); // EXPECT: unallocated_pointer
    cull<<<(NUM_OBJECTS + 255) / 256, 256, 0, stream>>>(d_objs, NUM_OBJECTS, d_visible_count, d_visible); // EXPECT: unallocated_pointer
    CUDA_CHECK(cudaMemcpyAsync(h_count, d_visible_count, sizeof(unsigned int), cudaMemcpyDeviceToHost, stream)); // EXPECT: unallocated_pointer
    CUDA_CHECK(cudaMemcpyAsync(h_visible, d_visible, NUM_OBJECTS, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    std::printf("%u of %d objects visible (first: %d)\n", *h_count, NUM_OBJECTS, h_visible[0]);

    CUDA_CHECK(cudaFree(d_objs));
    CUDA_CHECK(cudaFree(d_visible));
    CUDA_CHECK(cudaFreeHost(h_objs));
    CUDA_CHECK(cudaFreeHost(h_visible));
    CUDA_CHECK(cudaFreeHost(h_count));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
