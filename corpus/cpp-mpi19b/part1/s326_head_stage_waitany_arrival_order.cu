// case: near miss of the pipeline receive: the head stage posts one MPI_Irecv per producer rank into slices of d_acts and processes the slices in arrival order, launching the classifier kernel on a slice only after MPI_Waitany has returned its index.
// expect: none
#include <cstdio>
#include <vector>
#include <mpi.h>
#include <cuda_runtime.h>

static const int B = 128, H = 768, C = 10;

__global__ void encoder(float* act, int n, int producer) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) act[i] = tanhf(0.001f * (float)(i % 4096) - 0.2f * (float)producer);
}

__global__ void init_head(float* w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] = 0.02f * __cosf(0.5f * (float)i);
}

__global__ void classify(const float* act, const float* w, float* logits, int b, int h, int c) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= b * c) return;
  int r = idx / c, k = idx % c;
  float z = 0.0f;
  for (int j = 0; j < h; ++j) z += w[k * h + j] * act[r * h + j];
  logits[idx] = z;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int head = size - 1, nprod = size - 1, n = B * H;
  const size_t act_bytes = (size_t)n * sizeof(float);

  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);

  if (rank != head) {
    float* d_act;
    cudaMalloc(&d_act, act_bytes);
    encoder<<<(n + 255) / 256, 256, 0, s>>>(d_act, n, rank);
    cudaStreamSynchronize(s);
    MPI_Send(d_act, n, MPI_FLOAT, head, 100 + rank, MPI_COMM_WORLD);
    cudaFree(d_act);
  } else {
    float *d_acts, *d_w, *d_logits, *h_logits;
    cudaMalloc(&d_acts, (nprod + 1) * act_bytes);
    cudaMalloc(&d_w, (size_t)C * H * sizeof(float));
    cudaMalloc(&d_logits, (size_t)(nprod + 1) * B * C * sizeof(float));
    cudaMallocHost(&h_logits, (size_t)(nprod + 1) * B * C * sizeof(float));
    cudaMemsetAsync(d_acts, 0, (nprod + 1) * act_bytes, s);
    cudaMemsetAsync(d_logits, 0, (size_t)(nprod + 1) * B * C * sizeof(float), s);
    init_head<<<(C * H + 255) / 256, 256, 0, s>>>(d_w, C * H);
    cudaStreamSynchronize(s);

    std::vector<MPI_Request> reqs(nprod);
    for (int p = 0; p < nprod; ++p)
      MPI_Irecv(d_acts + (size_t)p * n, n, MPI_FLOAT, p, 100 + p, MPI_COMM_WORLD, &reqs[p]);

    for (int done = 0; done < nprod; ++done) {
      int p = MPI_UNDEFINED;
      MPI_Waitany(nprod, reqs.data(), &p, MPI_STATUS_IGNORE);
      if (p == MPI_UNDEFINED) break;
      classify<<<(B * C + 127) / 128, 128, 0, s>>>(d_acts + (size_t)p * n, d_w, d_logits + (size_t)p * B * C, B, H, C);
    }
    cudaMemcpyAsync(h_logits, d_logits, (size_t)nprod * B * C * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    for (int p = 0; p < nprod; ++p) printf("producer %d: logit[0] = %.4f\n", p, h_logits[(size_t)p * B * C]);

    cudaFree(d_acts);
    cudaFree(d_w);
    cudaFree(d_logits);
    cudaFreeHost(h_logits);
  }

  cudaStreamDestroy(s);
  MPI_Finalize();
  return 0;
}
