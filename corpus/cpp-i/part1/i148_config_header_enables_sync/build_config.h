#pragma once

#define STAGING_USE_PINNED 1
#define STAGING_SYNC_BEFORE_READ

#if defined(_WIN32)
#define STAGING_EXPORT __declspec(dllexport)
#else
#define STAGING_EXPORT
#endif
