// Mesh upload configuration.
#pragma once

#define MESH_STAGING_BYTES (16u << 20)

// Uncomment to checksum the staging buffer on the CPU before each upload
// (slow: the staging buffer is write-combined, and CPU reads of it are uncached).
// #define MESH_DEBUG_STAGING_CHECKSUM

// Read every uploaded mesh back and compare it with the generator's output.
#define MESH_READBACK_VERIFY 1
