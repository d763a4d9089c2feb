//! case: a LazyLock context and stream and a LazyLock<Mutex<..>> pinned staging buffer shared by all uploads; each chunk is copied from the pinned buffer and waited for before the buffer is refilled or the lock released
//! expect: none
use std::sync::{LazyLock, Mutex};

use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result, Stream};

const STAGING_LEN: usize = 1 << 22;

static CTX: LazyLock<Context> = LazyLock::new(|| Context::new(0).expect("no CUDA device"));
static STREAM: LazyLock<Stream> = LazyLock::new(|| CTX.new_stream().expect("stream"));
static STAGING: LazyLock<Mutex<PinnedBuffer<f32>>> =
    LazyLock::new(|| Mutex::new(CTX.alloc_pinned(STAGING_LEN).expect("pinned staging")));

/// Uploads `data` as device chunks of at most STAGING_LEN floats.
pub fn upload(data: &[f32]) -> Result<Vec<DeviceBuffer<f32>>> {
    let mut staging = STAGING.lock().expect("poisoned");
    let mut parts = Vec::with_capacity(data.len().div_ceil(STAGING_LEN));
    for chunk in data.chunks(STAGING_LEN) {
        staging[..chunk.len()].copy_from_slice(chunk);
        let mut part = CTX.alloc::<f32>(chunk.len())?;
        // SAFETY: staging is pinned; rewritten only after the synchronize below.
        unsafe { STREAM.copy_htod_async(&mut part, &staging[..chunk.len()])? };
        STREAM.synchronize()?;
        parts.push(part);
    }
    Ok(parts)
}
