// case: near miss of the inference worker's error path: when the workspace allocation fails after MPI_Irecv into d_in was posted, the worker calls MPI_Cancel and then MPI_Wait on the request before cudaFree(d_in).
// expect: none
#include <cstdio>
#include <vector>
#include <mpi.h>
#include <cuda_runtime.h>

enum { TAG_TOKENS = 8, TAG_LOGITS = 9 };
static const int SEQ = 128, HID = 256, VOCAB = 1024;

__global__ void embed_tokens(const float* tok, const float* table, float* h, int seq, int hid, int vocab) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= seq * hid) return;
  int t = idx / hid, d = idx % hid;
  int id = ((int)tok[t]) % vocab;
  h[idx] = table[id * hid + d];
}

__global__ void logits_kernel(const float* h, const float* table, float* out, int seq, int hid, int vocab) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= seq * vocab) return;
  int t = idx / vocab, v = idx % vocab;
  float acc = 0.0f;
  for (int d = 0; d < hid; ++d) acc += h[t * hid + d] * table[v * hid + d];
  out[idx] = acc;
}

__global__ void init_table(float* table, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) table[i] = 0.01f * __sinf((float)i);
}

static int serve_one(int rank, size_t workspace_bytes) {
  float *d_tokens, *d_table, *d_logits;
  cudaMalloc(&d_tokens, SEQ * sizeof(float));
  cudaMalloc(&d_table, (size_t)VOCAB * HID * sizeof(float));
  cudaMalloc(&d_logits, (size_t)SEQ * VOCAB * sizeof(float));
  cudaMemset(d_tokens, 0, SEQ * sizeof(float));
  init_table<<<(VOCAB * HID + 255) / 256, 256>>>(d_table, VOCAB * HID);
  cudaDeviceSynchronize();

  MPI_Request req;
  MPI_Irecv(d_tokens, SEQ, MPI_FLOAT, 0, TAG_TOKENS, MPI_COMM_WORLD, &req);

  float* d_hidden = NULL;
  if (cudaMalloc(&d_hidden, workspace_bytes) != cudaSuccess) {
    fprintf(stderr, "rank %d: no room for a %zu-byte workspace\n", rank, workspace_bytes);
    MPI_Cancel(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);  // the receive is cancelled or complete: d_tokens is ours again
    cudaFree(d_tokens);
    cudaFree(d_table);
    cudaFree(d_logits);
    return 1;
  }

  MPI_Wait(&req, MPI_STATUS_IGNORE);
  embed_tokens<<<(SEQ * HID + 255) / 256, 256>>>(d_tokens, d_table, d_hidden, SEQ, HID, VOCAB);
  logits_kernel<<<(SEQ * VOCAB + 255) / 256, 256>>>(d_hidden, d_table, d_logits, SEQ, HID, VOCAB);
  std::vector<float> h_logits((size_t)SEQ * VOCAB);
  cudaMemcpy(h_logits.data(), d_logits, h_logits.size() * sizeof(float), cudaMemcpyDeviceToHost);
  MPI_Send(h_logits.data(), SEQ * VOCAB, MPI_FLOAT, 0, TAG_LOGITS, MPI_COMM_WORLD);

  cudaDeviceSynchronize();
  cudaFree(d_hidden);
  cudaFree(d_tokens);
  cudaFree(d_table);
  cudaFree(d_logits);
  return 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    std::vector<float> tokens(SEQ), logits((size_t)SEQ * VOCAB);
    for (int t = 0; t < SEQ; ++t) tokens[t] = (float)((t * 31) % VOCAB);
    for (int w = 1; w < size; ++w) MPI_Send(tokens.data(), SEQ, MPI_FLOAT, w, TAG_TOKENS, MPI_COMM_WORLD);
    for (int w = 1; w < size; ++w) {
      MPI_Recv(logits.data(), SEQ * VOCAB, MPI_FLOAT, w, TAG_LOGITS, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf("worker %d: logit[0] = %.5f\n", w, logits[0]);
    }
  } else if (serve_one(rank, (size_t)SEQ * HID * sizeof(float)) != 0) {
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  MPI_Finalize();
  return 0;
}
