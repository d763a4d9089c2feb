// Shapes from NVIDIA's cuda-samples that the first runs misread: error paths that clean up after
// a failed call, pageable uploads whose source is freed at once, and a second stream that joins
// a graph capture through an event. Each `ok_*` has a `fires_*` twin.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void fill(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 1.0f;
}

// cudaMemcpyAsync from pageable memory returns once the data is staged: freeing it is safe.
void ok_pageable_source_freed_after_the_upload_returns(int n, cudaStream_t s) {
    float* h = (float*)malloc(n * sizeof(float));
    float* d;
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s); //~ pageable_async_copy
    free(h);
    cudaStreamSynchronize(s);
}

void fires_pinned_source_freed_while_the_upload_runs(int n, float* d) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    float* h = (float*)malloc(n * sizeof(float));
    cudaHostRegister(h, n * sizeof(float), cudaHostRegisterDefault);
    cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s);
    h[0] = 2.0f; //~ missing_sync
    cudaStreamSynchronize(s);
}

// The copy's own failure branch: nothing was enqueued.
int ok_cleanup_when_the_copy_itself_failed(int n, float* d, cudaStream_t s) {
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    cudaError_t err = cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    if (err != cudaSuccess) {
        printf("copy failed, last value %f\n", h[0]);
        return 1;
    }
    cudaStreamSynchronize(s);
    return 0;
}

int ok_cleanup_when_the_checked_call_failed(int n, float* d, cudaStream_t s) {
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    if (cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s) != cudaSuccess) {
        printf("copy failed, last value %f\n", h[0]);
        return 1;
    }
    cudaStreamSynchronize(s);
    return 0;
}

// A later call failed: the copy was enqueued and may still run.
int fires_cleanup_when_a_later_call_failed(int n, float* d, cudaStream_t s, cudaEvent_t e) {
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    cudaError_t err = cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    if (err != cudaSuccess) {
        return 1;
    }
    err = cudaEventRecord(e, s);
    if (err != cudaSuccess) {
        printf("record failed, last value %f\n", h[0]); //~ missing_sync
        return 1;
    }
    cudaStreamSynchronize(s);
    return 0;
}

// A stream that waits for an event recorded in a capture joins the capture: its work goes into
// the graph and runs only when the graph is launched.
float ok_second_stream_joins_the_capture(int n, float* d, cudaGraph_t* graph) {
    cudaStream_t s1, s2;
    cudaEvent_t forked, joined;
    cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    cudaEventCreate(&forked);
    cudaEventCreate(&joined);
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal);
    fill<<<(n + 255) / 256, 256, 0, s1>>>(d, n);
    cudaEventRecord(forked, s1);
    cudaStreamWaitEvent(s2, forked, 0);
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s2);
    cudaEventRecord(joined, s2);
    cudaStreamWaitEvent(s1, joined, 0);
    cudaStreamEndCapture(s1, graph);
    return h[0];
}

float fires_the_same_two_streams_without_a_capture(int n, float* d) {
    cudaStream_t s1, s2;
    cudaEvent_t forked, joined;
    cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    cudaEventCreate(&forked);
    cudaEventCreate(&joined);
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    fill<<<(n + 255) / 256, 256, 0, s1>>>(d, n);
    cudaEventRecord(forked, s1);
    cudaStreamWaitEvent(s2, forked, 0);
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s2);
    cudaEventRecord(joined, s2);
    cudaStreamWaitEvent(s1, joined, 0);
    return h[0]; //~ missing_sync
}

float ok_the_same_two_streams_then_the_first_synchronized(int n, float* d) {
    cudaStream_t s1, s2;
    cudaEvent_t forked, joined;
    cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    cudaEventCreate(&forked);
    cudaEventCreate(&joined);
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    fill<<<(n + 255) / 256, 256, 0, s1>>>(d, n);
    cudaEventRecord(forked, s1);
    cudaStreamWaitEvent(s2, forked, 0);
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s2);
    cudaEventRecord(joined, s2);
    cudaStreamWaitEvent(s1, joined, 0);
    cudaStreamSynchronize(s1);
    return h[0];
}

// A scalar read back into the stack (jacobiCudaGraphs): pageable, but 8 bytes are latency-bound
// whatever the memory, so it is under the size threshold ...
double ok_scalar_read_back_into_the_stack(const double* d_sum, cudaStream_t s) {
    double sum = 0.0;
    cudaMemcpyAsync(&sum, d_sum, sizeof(double), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    return sum;
}

// ... but the same copy captured into a graph runs when the graph does, not at the call.
void ok_scalar_read_back_captured_into_a_graph(const double* d_sum, double* sum, cudaStream_t s, cudaGraph_t* g) {
    double local = 0.0;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    cudaMemcpyAsync(&local, d_sum, sizeof(double), cudaMemcpyDeviceToHost, s);
    cudaStreamEndCapture(s, g);
    *sum = local;
}

// A field of a host struct read back asynchronously (llm.c's `&model->mean_loss`): pageable.
struct Model {
    float* d_losses;
    float mean_loss;
};

void reduce_loss(Model* model, cudaStream_t s) {
    // Four bytes: under the size threshold.
    cudaMemcpyAsync(&model->mean_loss, model->d_losses, sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
}

int fires_loss_read_back_into_a_struct_field(cudaStream_t s) {
    Model model;
    cudaMalloc(&model.d_losses, 64 * sizeof(float));
    reduce_loss(&model, s);
    return model.mean_loss > 0.0f;
}

// The same field of a struct in pinned memory: not pageable.
int ok_loss_read_back_into_a_pinned_struct(cudaStream_t s) {
    Model* model;
    cudaMallocHost(&model, sizeof(Model));
    cudaMalloc(&model->d_losses, 64 * sizeof(float));
    cudaMemcpyAsync(&model->mean_loss, model->d_losses, sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    return model->mean_loss > 0.0f;
}

// The snippets above leave out uploads, copies back and frees that are not what they test.
// cuda-lint: allow-file(device_memory_leak, uninitialized_device_read, unread_kernel_output)
