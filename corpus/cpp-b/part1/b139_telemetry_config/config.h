#pragma once
// Build configuration for the telemetry decoder.
#define TELEMETRY_WC_RESULTS 1
#define TELEMETRY_EARLY_CHECKSUM
// #define TELEMETRY_STRICT_SYNC
