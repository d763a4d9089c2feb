// case: a DeviceBuffer RAII class with an implicit conversion to T* is passed to a kernel; afterwards the host validates the labels by indexing the buffer, which converts to the raw device pointer and dereferences it on the host
// expect: host_deref_device_ptr=1
#include "device_buffer.h"
#include <vector>

__global__ void threshold_labels(const float* v, int* labels, int n, float t) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) labels[i] = v[i] > t ? 1 : 0;
}

int main() {
    const int n = 1 << 20;
    std::vector<float> values(n);
    for (int i = 0; i < n; ++i) values[i] = float(i % 100) / 100.f;

    DeviceBuffer<float> d_values(n);
    DeviceBuffer<int> d_labels(n);
    d_values.upload(values.data());

    threshold_labels<<<(n + 255) / 256, 256>>>(d_values, d_labels, n, 0.5f);
    DB_CHECK(cudaGetLastError());
    DB_CHECK(cudaDeviceSynchronize());

    int positives = 0;
    for (int i = 0; i < n; ++i) positives += d_labels[i]; // EXPECT: host_deref_device_ptr
    std::printf("%d of %d above threshold\n", positives, n);
    return 0;
}
