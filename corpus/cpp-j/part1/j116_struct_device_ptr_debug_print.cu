// case: a solver keeps its device arrays in a plain struct; after a synchronous download of the residual, a debug print reads the first element of the device residual array instead of the host copy
// expect: host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_SAFE_CALL(call) do { cudaError_t err = call; if (cudaSuccess != err) { \
    fprintf(stderr, "Cuda error in file '%s' in line %i : %s.\n", __FILE__, __LINE__, cudaGetErrorString(err)); \
    exit(EXIT_FAILURE); } } while (0)

struct JacobiState {
    float* d_u;
    float* d_unew;
    float* d_res;
    int n;
};

__global__ void jacobi_step(const float* u, float* unew, float* res, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= 0 || i >= n - 1) return;
    float v = 0.5f * (u[i - 1] + u[i + 1]);
    unew[i] = v;
    res[i] = fabsf(v - u[i]);
}

int main() {
    JacobiState st;
    st.n = 1 << 16;
    const size_t bytes = st.n * sizeof(float);
    CUDA_SAFE_CALL(cudaMalloc((void**)&st.d_u, bytes));
    CUDA_SAFE_CALL(cudaMalloc((void**)&st.d_unew, bytes));
    CUDA_SAFE_CALL(cudaMalloc((void**)&st.d_res, bytes));
    CUDA_SAFE_CALL(cudaMemset(st.d_u, 0, bytes));
    CUDA_SAFE_CALL(cudaMemset(st.d_unew, 0, bytes));
    CUDA_SAFE_CALL(cudaMemset(st.d_res, 0, bytes));
    float one = 1.0f;
    CUDA_SAFE_CALL(cudaMemcpy(st.d_u + st.n - 1, &one, sizeof(float), cudaMemcpyHostToDevice));
    CUDA_SAFE_CALL(cudaMemcpy(st.d_unew + st.n - 1, &one, sizeof(float), cudaMemcpyHostToDevice));

    float* h_res = (float*)malloc(bytes);
    for (int it = 0; it < 200; ++it) {
        jacobi_step<<<(st.n + 255) / 256, 256>>>(st.d_u, st.d_unew, st.d_res, st.n);
        float* t = st.d_u; st.d_u = st.d_unew; st.d_unew = t;
    }
    CUDA_SAFE_CALL(cudaMemcpy(h_res, st.d_res, bytes, cudaMemcpyDeviceToHost));
    float maxres = 0.f;
    for (int i = 0; i < st.n; ++i) maxres = h_res[i] > maxres ? h_res[i] : maxres;
    printf("max residual %g (res[1]=%g)\n", maxres, st.d_res[1]); // EXPECT: host_deref_device_ptr

    free(h_res);
    CUDA_SAFE_CALL(cudaFree(st.d_res));
    CUDA_SAFE_CALL(cudaFree(st.d_unew));
    CUDA_SAFE_CALL(cudaFree(st.d_u));
    return 0;
}
