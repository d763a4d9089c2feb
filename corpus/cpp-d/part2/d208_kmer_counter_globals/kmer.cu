// case: a C-style genomics k-mer counter keeps its buffers in file-scope globals set up by kmer_init(); kmer_shutdown() releases the pinned table snapshot (cudaMallocHost) with cudaFree.
// expect: mismatched_free=1
#include "kmer_config.h"
#include <string.h>

static char* g_h_reads = NULL;           /* pinned staging for one batch of reads */
static char* g_d_reads = NULL;
static unsigned int* g_d_table = NULL;   /* counts per hashed k-mer */
static unsigned int* g_h_table = NULL;   /* pinned snapshot of the table */
static cudaStream_t g_stream;

__device__ static int base_code(char c) { return c == 'A' ? 0 : c == 'C' ? 1 : c == 'G' ? 2 : 3; }

__global__ void count_kmers(const char* reads, int nreads, unsigned int* table) {
  int r = blockIdx.x;
  if (r >= nreads) return;
  const char* read = reads + (size_t)r * READ_LEN;
  for (int pos = threadIdx.x; pos + KMER_K <= READ_LEN; pos += blockDim.x) {
    unsigned long long code = 0;
    for (int j = 0; j < KMER_K; ++j) code = (code << 2) | base_code(read[pos + j]);
    unsigned int slot = (unsigned int)((code * 0x9E3779B97F4A7C15ull) >> (64 - TABLE_BITS));
    atomicAdd(&table[slot], 1u);
  }
}

static void kmer_init(void) {
  checkCudaErrors(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
  checkCudaErrors(cudaHostAlloc((void**)&g_h_reads, (size_t)BATCH_READS * READ_LEN, cudaHostAllocDefault));
  checkCudaErrors(cudaMalloc((void**)&g_d_reads, (size_t)BATCH_READS * READ_LEN));
  checkCudaErrors(cudaMalloc((void**)&g_d_table, TABLE_SIZE * sizeof(unsigned int)));
  checkCudaErrors(cudaMallocHost((void**)&g_h_table, TABLE_SIZE * sizeof(unsigned int)));
  checkCudaErrors(cudaMemsetAsync(g_d_table, 0, TABLE_SIZE * sizeof(unsigned int), g_stream));
}

/* Synthetic reads; the previous batch's upload finished in kmer_count_batch(). */
static void kmer_load_batch(int batch) {
  static const char alphabet[4] = {'A', 'C', 'G', 'T'};
  unsigned int state = 2463534242u + (unsigned int)batch;
  for (size_t i = 0; i < (size_t)BATCH_READS * READ_LEN; ++i) {
    state ^= state << 13; state ^= state >> 17; state ^= state << 5;
    g_h_reads[i] = alphabet[state & 3];
  }
}

static void kmer_count_batch(void) {
  checkCudaErrors(cudaMemcpyAsync(g_d_reads, g_h_reads, (size_t)BATCH_READS * READ_LEN,
                                  cudaMemcpyHostToDevice, g_stream));
  count_kmers<<<BATCH_READS, 128, 0, g_stream>>>(g_d_reads, BATCH_READS, g_d_table);
  checkCudaErrors(cudaGetLastError());
  checkCudaErrors(cudaStreamSynchronize(g_stream));
}

static unsigned long long kmer_collect(unsigned int* max_count) {
  unsigned long long occupied = 0;
  checkCudaErrors(cudaMemcpyAsync(g_h_table, g_d_table, TABLE_SIZE * sizeof(unsigned int),
                                  cudaMemcpyDeviceToHost, g_stream));
  checkCudaErrors(cudaStreamSynchronize(g_stream));
  *max_count = 0;
  for (unsigned int i = 0; i < TABLE_SIZE; ++i) {
    if (g_h_table[i]) ++occupied;
    if (g_h_table[i] > *max_count) *max_count = g_h_table[i];
  }
  return occupied;
}

static void kmer_shutdown(void) {
  checkCudaErrors(cudaStreamSynchronize(g_stream));
  checkCudaErrors(cudaFreeHost(g_h_reads));
  checkCudaErrors(cudaFree(g_d_reads));
  checkCudaErrors(cudaFree(g_d_table));
  checkCudaErrors(cudaFree(g_h_table));  // EXPECT: mismatched_free
  checkCudaErrors(cudaStreamDestroy(g_stream));
}

int main(void) {
  unsigned int max_count = 0;
  kmer_init();
  for (int b = 0; b < 8; ++b) {
    kmer_load_batch(b);
    kmer_count_batch();
  }
  unsigned long long occupied = kmer_collect(&max_count);
  printf("%llu occupied slots, max multiplicity %u\n", occupied, max_count);
  kmer_shutdown();
  return 0;
}
