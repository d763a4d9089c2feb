// Texture streaming configuration (engine-wide).
#pragma once

#define STREAMING_PAGE_BYTES (4u << 20)
#define STREAMING_PAGES 12

// The staging page is only ever written by the CPU and read by the copy engine:
// let the CPU combine its writes.
#define STAGING_WRITE_COMBINED 1

// Detect corrupted pages from the pak file before they reach the GPU.
#define STREAMING_VERIFY_CRC 1
