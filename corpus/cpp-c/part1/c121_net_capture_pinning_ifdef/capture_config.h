// Build-time knobs of the capture ingest service.
#pragma once

#define CAPTURE_BATCH_PACKETS 8192
#define CAPTURE_SNAPLEN 2048
#define CAPTURE_PROTO_BUCKETS 256

// Page-lock the batch buffer for true async uploads. Needs `ulimit -l` raised on the capture
// hosts, so it is off until ops rolls out the new limits.
// #define CAPTURE_PIN_BUFFERS 1
