// Build switches for the search index's GPU postings decoder.
#pragma once

#ifndef INDEX_USE_PINNED
#define INDEX_USE_PINNED 1   // production default: page-locked staging
#endif

constexpr int kPostingsPerBlock = 128;
constexpr int kBlocksPerBatch = 8192;
constexpr size_t kBatchPostings = size_t(kPostingsPerBlock) * kBlocksPerBatch;
