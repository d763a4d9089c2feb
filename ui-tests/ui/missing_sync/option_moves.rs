//@no-rustfix
// Some findings here have no machine-applicable fix: the fixes are checked in fixes.rs.
// Readback buffers held in `Option`s, enums and struct fields, moved out with `Option::take`,
// `Option::replace`, `Option::insert`, `std::mem::replace`, `std::mem::take` or a destructuring
// pattern: the buffer moved out is the one the asynchronous copy still writes.
use cuda_lint_runtime::{Context, DeviceBuffer, Error, PinnedBuffer, Stream};

/// A readback slot: the pinned buffer is parked in `host` while no one looks at it.
struct Readback {
    stream: Stream,
    dev: DeviceBuffer<f32>,
    host: Option<PinnedBuffer<f32>>,
}

impl Readback {
    fn new(ctx: &Context, n: usize) -> Result<Readback, Error> {
        Ok(Readback { stream: ctx.new_stream()?, dev: ctx.alloc(n)?, host: Some(ctx.alloc_pinned(n)?) })
    }

    /// Enqueues the readback into the parked buffer and returns at once.
    fn start(&mut self) -> Result<(), Error> {
        let host = self.host.as_mut().expect("buffer parked");
        unsafe { self.stream.copy_dtoh_async(host, &self.dev) }
    }

    fn fires_taken_out_of_the_option_and_read(&mut self) -> Result<f32, Error> {
        self.start()?;
        let host = self.host.take().expect("buffer parked");
        let first = host[0];
        //~^ missing_sync
        self.stream.synchronize()?;
        self.host = Some(host);
        Ok(first)
    }

    fn ok_taken_out_of_the_option_after_the_sync(&mut self) -> Result<f32, Error> {
        self.start()?;
        self.stream.synchronize()?;
        let host = self.host.take().expect("buffer parked");
        let first = host[0];
        self.host = Some(host);
        Ok(first)
    }

    fn fires_mem_take_of_the_option_then_summed(&mut self) -> Result<f32, Error> {
        self.start()?;
        let taken = std::mem::take(&mut self.host);
        let total = taken.as_ref().map_or(0.0, |h| h.iter().sum());
        //~^ missing_sync
        self.stream.synchronize()?;
        self.host = taken;
        Ok(total)
    }

    fn ok_mem_take_of_the_option_summed_after_the_sync(&mut self) -> Result<f32, Error> {
        self.start()?;
        let taken = std::mem::take(&mut self.host);
        self.stream.synchronize()?;
        let total = taken.as_ref().map_or(0.0, |h| h.iter().sum());
        self.host = taken;
        Ok(total)
    }

    fn fires_replaced_and_the_old_buffer_read(&mut self, fresh: PinnedBuffer<f32>) -> Result<f32, Error> {
        self.start()?;
        // `replace` hands back the buffer the readback writes.
        let old = self.host.replace(fresh).expect("buffer parked");
        let first = old[0];
        //~^ missing_sync
        self.stream.synchronize()?;
        Ok(first)
    }

    fn ok_replaced_and_the_fresh_buffer_written(&mut self, fresh: PinnedBuffer<f32>) -> Result<f32, Error> {
        self.start()?;
        // The buffer now in the slot is the fresh one, which no copy uses.
        let old = self.host.replace(fresh).expect("buffer parked");
        self.host.as_mut().expect("just put").fill(0.0);
        self.stream.synchronize()?;
        Ok(old[0])
    }
}

/// Double buffering with `std::mem::replace`: `front` is what the host reads, `back` what the
/// next readback fills.
struct DoubleBuffer {
    stream: Stream,
    front: PinnedBuffer<f32>,
    back: PinnedBuffer<f32>,
}

impl DoubleBuffer {
    fn fires_swapped_in_before_the_readback_finished(&mut self, dev: &DeviceBuffer<f32>, spare: PinnedBuffer<f32>) -> Result<f32, Error> {
        unsafe { self.stream.copy_dtoh_async(&mut self.back, dev)? };
        let filled = std::mem::replace(&mut self.back, spare);
        self.front = filled;
        let first = self.front[0];
        //~^ missing_sync
        self.stream.synchronize()?;
        Ok(first)
    }

    fn ok_swapped_in_after_the_readback_finished(&mut self, dev: &DeviceBuffer<f32>, spare: PinnedBuffer<f32>) -> Result<f32, Error> {
        unsafe { self.stream.copy_dtoh_async(&mut self.back, dev)? };
        self.stream.synchronize()?;
        let filled = std::mem::replace(&mut self.back, spare);
        self.front = filled;
        Ok(self.front[0])
    }

    fn ok_mem_replace_returns_the_buffer_no_copy_uses(&mut self, dev: &DeviceBuffer<f32>, spare: PinnedBuffer<f32>) -> Result<f32, Error> {
        // The readback fills `back`; the buffer moved out is the old `front`.
        unsafe { self.stream.copy_dtoh_async(&mut self.back, dev)? };
        let previous = std::mem::replace(&mut self.front, spare);
        let first = previous[0];
        self.stream.synchronize()?;
        Ok(first)
    }
}

fn fires_option_insert_then_read_through_the_returned_reference(
    ctx: &Context,
    stream: &Stream,
    dev: &DeviceBuffer<f32>,
) -> Result<f32, Error> {
    let mut slot: Option<PinnedBuffer<f32>> = None;
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { stream.copy_dtoh_async(&mut host, dev)? };
    let parked = slot.insert(host);
    let first = parked[0];
    //~^ missing_sync
    stream.synchronize()?;
    Ok(first)
}

fn ok_option_insert_read_after_the_sync(ctx: &Context, stream: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut slot: Option<PinnedBuffer<f32>> = None;
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { stream.copy_dtoh_async(&mut host, dev)? };
    let parked = slot.insert(host);
    stream.synchronize()?;
    Ok(parked[0])
}

/// A job whose buffers are destructured when it completes.
struct Job {
    host: PinnedBuffer<f32>,
    scratch: PinnedBuffer<f32>,
    dev: DeviceBuffer<f32>,
}

fn start_job(ctx: &Context, stream: &Stream, dev: DeviceBuffer<f32>) -> Result<Job, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { stream.copy_dtoh_async(&mut host, &dev)? };
    Ok(Job { host, scratch: ctx.alloc_pinned(dev.len())?, dev })
}

fn fires_destructured_job_read_before_the_sync(ctx: &Context, stream: &Stream, dev: DeviceBuffer<f32>) -> Result<f32, Error> {
    let job = start_job(ctx, stream, dev)?;
    let Job { host, dev: _dev, .. } = job;
    let first = host[0];
    //~^ missing_sync
    stream.synchronize()?;
    Ok(first)
}

fn ok_destructured_job_scratch_written_before_the_sync(ctx: &Context, stream: &Stream, dev: DeviceBuffer<f32>) -> Result<f32, Error> {
    // A partial move of the field no copy uses.
    let job = start_job(ctx, stream, dev)?;
    let mut scratch = job.scratch;
    scratch.fill(0.0);
    stream.synchronize()?;
    Ok(job.host[0] + scratch[0])
}

fn fires_partial_move_of_the_field_the_copy_writes(ctx: &Context, stream: &Stream, dev: DeviceBuffer<f32>) -> Result<f32, Error> {
    let job = start_job(ctx, stream, dev)?;
    let host = job.host;
    let total = host.iter().sum();
    //~^ missing_sync
    stream.synchronize()?;
    drop(job.dev);
    Ok(total)
}

/// A slot that says where its buffer is.
enum Slot {
    Idle(PinnedBuffer<f32>),
    InFlight(PinnedBuffer<f32>),
    Empty,
}

fn launch_readback(slot: &mut Slot, stream: &Stream, dev: &DeviceBuffer<f32>) -> Result<(), Error> {
    if let Slot::Idle(mut buf) = std::mem::replace(slot, Slot::Empty) {
        unsafe { stream.copy_dtoh_async(&mut buf, dev)? };
        *slot = Slot::InFlight(buf);
    }
    Ok(())
}

fn fires_enum_in_flight_buffer_read_before_the_sync(slot: &mut Slot, stream: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    launch_readback(slot, stream, dev)?;
    let first = match slot {
        Slot::InFlight(buf) => buf[0],
        //~^ missing_sync
        Slot::Idle(_) | Slot::Empty => 0.0,
    };
    stream.synchronize()?;
    Ok(first)
}

fn ok_enum_in_flight_buffer_read_after_the_sync(slot: &mut Slot, stream: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    launch_readback(slot, stream, dev)?;
    stream.synchronize()?;
    let first = match slot {
        Slot::InFlight(buf) => buf[0],
        Slot::Idle(_) | Slot::Empty => 0.0,
    };
    Ok(first)
}

fn fires_enum_buffer_moved_out_with_mem_replace(ctx: &Context, stream: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut slot = Slot::Idle(ctx.alloc_pinned::<f32>(dev.len())?);
    launch_readback(&mut slot, stream, dev)?;
    if let Slot::InFlight(buf) = std::mem::replace(&mut slot, Slot::Empty) {
        let total = buf.iter().sum();
        //~^ missing_sync
        stream.synchronize()?;
        return Ok(total);
    }
    Ok(0.0)
}

fn ok_enum_buffer_moved_out_with_mem_replace_after_the_sync(ctx: &Context, stream: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut slot = Slot::Idle(ctx.alloc_pinned::<f32>(dev.len())?);
    launch_readback(&mut slot, stream, dev)?;
    stream.synchronize()?;
    if let Slot::InFlight(buf) = std::mem::replace(&mut slot, Slot::Empty) {
        return Ok(buf.iter().sum());
    }
    Ok(0.0)
}

fn main() {}
