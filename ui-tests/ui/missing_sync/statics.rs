//@no-rustfix
// Some findings here have no machine-applicable fix: the fixes are checked in fixes.rs.
// Process-wide streams in statics (`LazyLock`, `OnceLock`): a copy enqueued on a static stream
// is waited for by synchronizing that same static stream (however it is reached), an event
// recorded on it, or the context; synchronizing another static stream does not wait for it.
use std::sync::{LazyLock, OnceLock};

use cuda_lint_runtime::{Context, DeviceBuffer, Error, Event, PinnedBuffer, Stream};

static CTX: LazyLock<Context> = LazyLock::new(|| Context::new(0).expect("a CUDA device"));
static COPY_STREAM: LazyLock<Stream> = LazyLock::new(|| CTX.new_stream().expect("copy stream"));
static COMPUTE_STREAM: LazyLock<Stream> = LazyLock::new(|| CTX.new_stream().expect("compute stream"));
static UPLOAD_STREAM: OnceLock<Stream> = OnceLock::new();

/// Reads device statistics back through the process-wide copy stream.
struct Stats {
    dev: DeviceBuffer<f32>,
    host: PinnedBuffer<f32>,
}

impl Stats {
    fn new(n: usize) -> Result<Stats, Error> {
        Ok(Stats { dev: CTX.alloc_zeroed(n)?, host: CTX.alloc_pinned(n)? })
    }

    fn fires_read_before_the_static_stream_is_synchronized(&mut self) -> Result<f32, Error> {
        unsafe { COPY_STREAM.copy_dtoh_async(&mut self.host, &self.dev)? };
        let mean = self.host.iter().sum::<f32>() / self.host.len() as f32;
        //~^ missing_sync
        COPY_STREAM.synchronize()?;
        Ok(mean)
    }

    fn ok_read_after_the_same_static_stream_is_synchronized(&mut self) -> Result<f32, Error> {
        unsafe { COPY_STREAM.copy_dtoh_async(&mut self.host, &self.dev)? };
        COPY_STREAM.synchronize()?;
        Ok(self.host.iter().sum::<f32>() / self.host.len() as f32)
    }

    fn fires_read_after_the_other_static_stream_is_synchronized(&mut self) -> Result<f32, Error> {
        unsafe { COPY_STREAM.copy_dtoh_async(&mut self.host, &self.dev)? };
        COMPUTE_STREAM.synchronize()?;
        let first = self.host[0];
        //~^ missing_sync
        COPY_STREAM.synchronize()?;
        Ok(first)
    }

    fn ok_read_after_the_static_context_synchronizes(&mut self) -> Result<f32, Error> {
        unsafe { COPY_STREAM.copy_dtoh_async(&mut self.host, &self.dev)? };
        CTX.synchronize()?;
        Ok(self.host[0])
    }

    fn ok_read_after_an_event_recorded_on_the_static_stream(&mut self, done: &Event) -> Result<f32, Error> {
        unsafe { COPY_STREAM.copy_dtoh_async(&mut self.host, &self.dev)? };
        COPY_STREAM.record_event(done)?;
        done.synchronize()?;
        Ok(self.host[0])
    }
}

fn upload_stream() -> &'static Stream {
    UPLOAD_STREAM.get_or_init(|| CTX.new_stream().expect("upload stream"))
}

fn fires_oncelock_stream_readback_read_before_the_sync(dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut host = CTX.alloc_pinned::<f32>(dev.len())?;
    unsafe { upload_stream().copy_dtoh_async(&mut host, dev)? };
    let first = host[0];
    //~^ missing_sync
    upload_stream().synchronize()?;
    Ok(first)
}

fn ok_oncelock_stream_synchronized_through_get(dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    // `get` returns the stream `get_or_init` made: the one the copy is on.
    let mut host = CTX.alloc_pinned::<f32>(dev.len())?;
    unsafe { upload_stream().copy_dtoh_async(&mut host, dev)? };
    UPLOAD_STREAM.get().expect("initialized above").synchronize()?;
    Ok(host[0])
}

fn fires_oncelock_copy_waited_for_on_the_lazylock_stream(dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut host = CTX.alloc_pinned::<f32>(dev.len())?;
    unsafe { upload_stream().copy_dtoh_async(&mut host, dev)? };
    COPY_STREAM.synchronize()?;
    let first = host[0];
    //~^ missing_sync
    upload_stream().synchronize()?;
    Ok(first)
}

fn fires_staging_refilled_while_the_static_stream_uploads(dev: &mut DeviceBuffer<f32>, staging: &mut PinnedBuffer<f32>) -> Result<(), Error> {
    staging.fill(1.0);
    unsafe { COPY_STREAM.copy_htod_async(dev, staging)? };
    staging.fill(2.0);
    //~^ missing_sync
    COPY_STREAM.synchronize()
}

fn ok_staging_refilled_after_the_static_stream_uploads(dev: &mut DeviceBuffer<f32>, staging: &mut PinnedBuffer<f32>) -> Result<(), Error> {
    staging.fill(1.0);
    unsafe { COPY_STREAM.copy_htod_async(dev, staging)? };
    COPY_STREAM.synchronize()?;
    staging.fill(2.0);
    Ok(())
}

fn ok_static_stream_reached_through_a_local_reference(dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let stream: &Stream = &COPY_STREAM;
    let mut host = CTX.alloc_pinned::<f32>(dev.len())?;
    unsafe { COPY_STREAM.copy_dtoh_async(&mut host, dev)? };
    stream.synchronize()?;
    Ok(host[0])
}

fn main() {}
