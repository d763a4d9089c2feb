//@no-rustfix
// Some findings here have no machine-applicable fix: the fixes are checked in fixes.rs.
// Readbacks and uploads enqueued by worker threads (`std::thread::spawn`, `std::thread::scope`):
// joining a thread waits for the thread, not for the GPU work it enqueued. Only a synchronize
// (stream, event or context) orders the host access after the copy, wherever it is made.
#![cfg_attr(cuda_lint, allow(cuda_lint::uninitialized_device_read))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;

use cuda_lint_runtime::{Context, DeviceBuffer, Error, PinnedBuffer, Stream};

/// What a download worker hands back: the readback and the device buffer it was read from
/// (kept alive until the copy is done).
struct Download {
    host: PinnedBuffer<f32>,
    _dev: DeviceBuffer<f32>,
}

/// Enqueues a readback of `dev` on `stream` from a new thread and returns without waiting.
fn spawn_download(ctx: &Context, stream: &Arc<Stream>, dev: DeviceBuffer<f32>) -> thread::JoinHandle<Result<Download, Error>> {
    let ctx = ctx.clone();
    let stream = Arc::clone(stream);
    thread::spawn(move || {
        let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
        unsafe { stream.copy_dtoh_async(&mut host, &dev)? };
        Ok(Download { host, _dev: dev })
    })
}

fn fires_spawned_readback_read_after_join_before_the_sync(ctx: &Context, dev: DeviceBuffer<f32>) -> Result<f32, Error> {
    let stream = Arc::new(ctx.new_stream()?);
    let worker_ctx = ctx.clone();
    let worker_stream = Arc::clone(&stream);
    let handle = thread::spawn(move || -> Result<(PinnedBuffer<f32>, DeviceBuffer<f32>), Error> {
        let mut host = worker_ctx.alloc_pinned::<f32>(dev.len())?;
        unsafe { worker_stream.copy_dtoh_async(&mut host, &dev)? };
        Ok((host, dev))
    });
    // `join` waits for the thread to return; the copy it enqueued may still run.
    let (host, _dev) = handle.join().expect("download worker panicked")?;
    let first = host[0];
    //~^ missing_sync
    stream.synchronize()?;
    Ok(first)
}

fn ok_spawned_readback_read_after_the_stream_sync(ctx: &Context, dev: DeviceBuffer<f32>) -> Result<f32, Error> {
    let stream = Arc::new(ctx.new_stream()?);
    let worker_ctx = ctx.clone();
    let worker_stream = Arc::clone(&stream);
    let handle = thread::spawn(move || -> Result<(PinnedBuffer<f32>, DeviceBuffer<f32>), Error> {
        let mut host = worker_ctx.alloc_pinned::<f32>(dev.len())?;
        unsafe { worker_stream.copy_dtoh_async(&mut host, &dev)? };
        Ok((host, dev))
    });
    let (host, _dev) = handle.join().expect("download worker panicked")?;
    stream.synchronize()?;
    Ok(host[0])
}

fn ok_worker_synchronizes_before_returning(ctx: &Context, dev: DeviceBuffer<f32>) -> Result<f32, Error> {
    let stream = Arc::new(ctx.new_stream()?);
    let worker_ctx = ctx.clone();
    let worker_stream = Arc::clone(&stream);
    let handle = thread::spawn(move || -> Result<PinnedBuffer<f32>, Error> {
        let mut host = worker_ctx.alloc_pinned::<f32>(dev.len())?;
        unsafe { worker_stream.copy_dtoh_async(&mut host, &dev)? };
        worker_stream.synchronize()?;
        Ok(host)
    });
    let host = handle.join().expect("download worker panicked")?;
    Ok(host.iter().sum())
}

fn fires_download_helper_joined_and_summed_before_the_sync(ctx: &Context, dev: DeviceBuffer<f32>) -> Result<f32, Error> {
    let stream = Arc::new(ctx.new_stream()?);
    let download = spawn_download(ctx, &stream, dev).join().expect("download worker panicked")?;
    let total = download.host.iter().sum();
    //~^ missing_sync
    stream.synchronize()?;
    Ok(total)
}

fn ok_download_helper_joined_then_the_context_synchronizes(ctx: &Context, dev: DeviceBuffer<f32>) -> Result<f32, Error> {
    let stream = Arc::new(ctx.new_stream()?);
    let download = spawn_download(ctx, &stream, dev).join().expect("download worker panicked")?;
    ctx.synchronize()?;
    Ok(download.host.iter().sum())
}

fn fires_joined_readback_after_waiting_on_the_wrong_stream(ctx: &Context, dev: DeviceBuffer<f32>) -> Result<f32, Error> {
    let copies = Arc::new(ctx.new_stream()?);
    let compute = ctx.new_stream()?;
    let download = spawn_download(ctx, &copies, dev).join().expect("download worker panicked")?;
    compute.synchronize()?;
    let first = download.host[0];
    //~^ missing_sync
    copies.synchronize()?;
    Ok(first)
}

/// Scoped workers: each reads one shard back into its slice of one pinned buffer, on a stream
/// of its own.
fn fires_scoped_shards_read_after_the_scope_without_sync(
    ctx: &Context,
    streams: &[Stream; 2],
    shards: &[DeviceBuffer<f32>; 2],
) -> Result<f32, Error> {
    let n = shards[0].len();
    let mut host = ctx.alloc_pinned::<f32>(2 * n)?;
    thread::scope(|scope| -> Result<(), Error> {
        let (left, right) = host.split_at_mut(n);
        let a = scope.spawn(|| unsafe { streams[0].copy_dtoh_async(left, &shards[0]) });
        let b = scope.spawn(|| unsafe { streams[1].copy_dtoh_async(right, &shards[1]) });
        a.join().expect("shard worker panicked")?;
        b.join().expect("shard worker panicked")
    })?;
    // Every worker has returned, and both copies may still run.
    let total = host.iter().sum();
    //~^ missing_sync
    streams[0].synchronize()?;
    streams[1].synchronize()?;
    Ok(total)
}

fn ok_scoped_shards_each_worker_synchronizes(
    ctx: &Context,
    streams: &[Stream; 2],
    shards: &[DeviceBuffer<f32>; 2],
) -> Result<f32, Error> {
    let n = shards[0].len();
    let mut host = ctx.alloc_pinned::<f32>(2 * n)?;
    thread::scope(|scope| -> Result<(), Error> {
        let (left, right) = host.split_at_mut(n);
        let a = scope.spawn(|| -> Result<(), Error> {
            unsafe { streams[0].copy_dtoh_async(left, &shards[0])? };
            streams[0].synchronize()
        });
        let b = scope.spawn(|| -> Result<(), Error> {
            unsafe { streams[1].copy_dtoh_async(right, &shards[1])? };
            streams[1].synchronize()
        });
        a.join().expect("shard worker panicked")?;
        b.join().expect("shard worker panicked")
    })?;
    Ok(host.iter().sum())
}

fn ok_scoped_shards_main_synchronizes_both_streams_after_the_scope(
    ctx: &Context,
    streams: &[Stream; 2],
    shards: &[DeviceBuffer<f32>; 2],
) -> Result<f32, Error> {
    let n = shards[0].len();
    let mut host = ctx.alloc_pinned::<f32>(2 * n)?;
    thread::scope(|scope| -> Result<(), Error> {
        let (left, right) = host.split_at_mut(n);
        let a = scope.spawn(|| unsafe { streams[0].copy_dtoh_async(left, &shards[0]) });
        let b = scope.spawn(|| unsafe { streams[1].copy_dtoh_async(right, &shards[1]) });
        a.join().expect("shard worker panicked")?;
        b.join().expect("shard worker panicked")
    })?;
    streams[0].synchronize()?;
    streams[1].synchronize()?;
    Ok(host.iter().sum())
}

fn ok_main_fills_the_other_half_while_a_scoped_worker_uploads(
    ctx: &Context,
    stream: &Stream,
    dev: &mut DeviceBuffer<f32>,
) -> Result<(), Error> {
    // The worker uploads the first half; the main thread fills the second half, which no copy
    // uses, then waits for the upload.
    let n = dev.len();
    let mut staging = ctx.alloc_pinned::<f32>(2 * n)?;
    let (first, second) = staging.split_at_mut(n);
    first.fill(1.0);
    thread::scope(|scope| -> Result<(), Error> {
        let upload = scope.spawn(|| unsafe { stream.copy_htod_async(dev, first) });
        second.fill(2.0);
        upload.join().expect("upload worker panicked")
    })?;
    stream.synchronize()
}

/// A staging buffer shared behind a mutex: the lock orders the threads' host accesses, not the
/// copy the worker enqueued, which keeps reading the buffer after the lock is released.
struct SharedStaging {
    buf: Mutex<PinnedBuffer<f32>>,
}

// Known miss: the staging buffer reached through an `Arc<Mutex<..>>` cloned into the worker is
// not tied to the one the main thread locks.
fn known_miss_mutex_staging_refilled_after_the_worker_enqueued(
    ctx: &Context,
    stream: Arc<Stream>,
    mut dev: DeviceBuffer<f32>,
) -> Result<(), Error> {
    let shared = Arc::new(SharedStaging { buf: Mutex::new(ctx.alloc_pinned::<f32>(dev.len())?) });
    let (enqueued_tx, enqueued_rx) = mpsc::channel::<()>();
    let worker_shared = Arc::clone(&shared);
    let worker_stream = Arc::clone(&stream);
    let worker = thread::spawn(move || -> Result<DeviceBuffer<f32>, Error> {
        let mut staging = worker_shared.buf.lock().expect("poisoned");
        staging.fill(1.0);
        unsafe { worker_stream.copy_htod_async(&mut dev, &staging)? };
        drop(staging);
        enqueued_tx.send(()).expect("main thread gone");
        Ok(dev)
    });
    // The worker has enqueued the upload (and released the lock): it may still read the buffer.
    enqueued_rx.recv().expect("worker gone");
    shared.buf.lock().expect("poisoned").fill(2.0);
    let _dev = worker.join().expect("upload worker panicked")?;
    stream.synchronize()
}

fn ok_mutex_staging_refilled_after_the_worker_synchronized(
    ctx: &Context,
    stream: Arc<Stream>,
    mut dev: DeviceBuffer<f32>,
) -> Result<(), Error> {
    let shared = Arc::new(SharedStaging { buf: Mutex::new(ctx.alloc_pinned::<f32>(dev.len())?) });
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let worker_shared = Arc::clone(&shared);
    let worker_stream = Arc::clone(&stream);
    let worker = thread::spawn(move || -> Result<DeviceBuffer<f32>, Error> {
        let mut staging = worker_shared.buf.lock().expect("poisoned");
        staging.fill(1.0);
        unsafe { worker_stream.copy_htod_async(&mut dev, &staging)? };
        worker_stream.synchronize()?;
        drop(staging);
        done_tx.send(()).expect("main thread gone");
        Ok(dev)
    });
    done_rx.recv().expect("worker gone");
    shared.buf.lock().expect("poisoned").fill(2.0);
    let _dev = worker.join().expect("upload worker panicked")?;
    Ok(())
}

fn fires_worker_reads_its_own_readback_before_the_sync(ctx: &Context, dev: DeviceBuffer<f32>) -> Result<f32, Error> {
    let stream = ctx.new_stream()?;
    let worker_ctx = ctx.clone();
    let handle = thread::spawn(move || -> Result<f32, Error> {
        let mut host = worker_ctx.alloc_pinned::<f32>(dev.len())?;
        unsafe { stream.copy_dtoh_async(&mut host, &dev)? };
        let max = host.iter().cloned().fold(f32::MIN, f32::max);
        //~^ missing_sync
        stream.synchronize()?;
        Ok(max)
    });
    handle.join().expect("worker panicked")
}

// A worker closure that captures nothing is passed as a constant: it still runs where the
// thread is spawned, and what it hands back through `join` is what it made.
struct Gradients {
    stream: Stream,
    host: PinnedBuffer<f32>,
    dev: DeviceBuffer<f32>,
}

fn gradient_worker() -> Result<Gradients, Error> {
    let ctx = Context::new(0)?;
    let stream = ctx.new_stream()?;
    let dev = ctx.alloc::<f32>(1 << 20)?;
    let mut host = ctx.alloc_pinned::<f32>(1 << 20)?;
    unsafe { stream.copy_dtoh_async(&mut host, &dev)? };
    Ok(Gradients { stream, host, dev })
}

fn fires_capture_free_worker_joined_and_read(_ctx: &Context) -> Result<f32, Error> {
    let out = thread::spawn(gradient_worker).join().expect("worker panicked")?;
    let _ = (&out.dev, &out.stream);
    Ok(out.host.iter().sum()) //~ missing_sync
}

fn fires_capture_free_closure_joined_and_read(_ctx: &Context) -> Result<f32, Error> {
    let out = thread::spawn(|| gradient_worker()).join().expect("worker panicked")?;
    Ok(out.host.iter().sum()) //~ missing_sync
}

fn ok_capture_free_closure_joined_then_synchronized(_ctx: &Context) -> Result<f32, Error> {
    let out = thread::spawn(|| gradient_worker()).join().expect("worker panicked")?;
    out.stream.synchronize()?;
    Ok(out.host.iter().sum())
}

/// A readback handed to a consumer thread over a channel with the event recorded after its copy:
/// the consumer can wait for it (`Sender::send` moves the value, and it carries the event).
fn ok_readback_sent_with_its_event(ctx: &Context, dev: DeviceBuffer<f32>) -> Result<f32, Error> {
    let stream = ctx.new_stream()?;
    let (tx, rx) = mpsc::channel::<(PinnedBuffer<f32>, cuda_lint_runtime::Event)>();
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { stream.copy_dtoh_async(&mut host, &dev)? };
    let done = ctx.new_event()?;
    stream.record_event(&done)?;
    tx.send((host, done)).expect("receiver alive");
    let consumer = thread::spawn(move || -> Result<f32, Error> {
        let (host, done) = rx.recv().expect("sender alive");
        done.synchronize()?;
        Ok(host.iter().sum())
    });
    let sum = consumer.join().expect("consumer panicked")?;
    stream.synchronize()?;
    Ok(sum)
}

/// Handed over with nothing to wait on, the consumer may read it at once: the send is the last
/// point the sending thread orders anything.
fn fires_readback_sent_before_its_copy_finished(ctx: &Context, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let stream = ctx.new_stream()?;
    let (tx, rx) = mpsc::channel::<PinnedBuffer<f32>>();
    let consumer = thread::spawn(move || rx.iter().map(|host| host.iter().sum::<f32>()).sum::<f32>());
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { stream.copy_dtoh_async(&mut host, dev)? };
    tx.send(host).expect("consumer alive"); //~ missing_sync
    drop(tx);
    stream.synchronize()?;
    Ok(consumer.join().expect("consumer panicked"))
}

/// Formatting it (`{:?}` takes a `T: Debug`, a trait that reads) is a read.
fn fires_readback_formatted_before_the_sync(ctx: &Context, dev: DeviceBuffer<f32>) -> Result<String, Error> {
    let stream = ctx.new_stream()?;
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { stream.copy_dtoh_async(&mut host, &dev)? };
    let text = format!("{:?}", &host[..4]); //~ missing_sync
    stream.synchronize()?;
    Ok(text)
}

/// A bounded channel hands over the same way.
fn fires_readback_sent_on_a_bounded_channel_before_its_copy_finished(
    ctx: &Context,
    dev: &DeviceBuffer<f32>,
) -> Result<f32, Error> {
    let stream = ctx.new_stream()?;
    let (tx, rx) = mpsc::sync_channel::<PinnedBuffer<f32>>(1);
    let consumer = thread::spawn(move || rx.recv().map(|host| host.iter().sum::<f32>()).unwrap_or(0.0));
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { stream.copy_dtoh_async(&mut host, dev)? };
    tx.send(host).expect("consumer alive"); //~ missing_sync
    stream.synchronize()?;
    Ok(consumer.join().expect("consumer panicked"))
}

/// Waited for before the hand-off, a buffer alone is fine to send.
fn ok_readback_sent_after_the_sync(ctx: &Context, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let stream = ctx.new_stream()?;
    let (tx, rx) = mpsc::sync_channel::<PinnedBuffer<f32>>(1);
    let consumer = thread::spawn(move || rx.recv().map(|host| host.iter().sum::<f32>()).unwrap_or(0.0));
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { stream.copy_dtoh_async(&mut host, dev)? };
    stream.synchronize()?;
    tx.send(host).expect("consumer alive");
    Ok(consumer.join().expect("consumer panicked"))
}

fn main() {}
