//@no-rustfix
// Some findings here have no machine-applicable fix: the fixes are checked in fixes.rs.
// Pinned staging buffers allocated in loops or handed out by a pool of owned buffers. A buffer
// allocated in an iteration is new memory: no copy of an earlier iteration uses it. A buffer a
// pool hands out is the one pushed into it last: pushed back right after its copy was enqueued,
// the next pop gives out memory the copy still uses.
use cuda_lint_runtime::{Context, DeviceBuffer, Error, PinnedBuffer, Stream};

/// Pinned staging buffers, reused from upload to upload.
struct UploadPool {
    ctx: Context,
    stream: Stream,
    free: Vec<PinnedBuffer<f32>>,
}

impl UploadPool {
    fn take(&mut self, len: usize) -> Result<PinnedBuffer<f32>, Error> {
        match self.free.pop() {
            Some(buf) => Ok(buf),
            None => self.ctx.alloc_pinned::<f32>(len),
        }
    }

    fn put(&mut self, buf: PinnedBuffer<f32>) {
        self.free.push(buf);
    }

    fn ok_buffers_go_back_only_after_the_sync(&mut self, batches: &[Vec<f32>], devs: &mut [DeviceBuffer<f32>]) -> Result<(), Error> {
        let mut used = Vec::new();
        for (batch, dev) in batches.iter().zip(devs.iter_mut()) {
            let mut staging = self.take(batch.len())?;
            staging.copy_from_slice(batch);
            unsafe { self.stream.copy_htod_async(dev, &staging)? };
            used.push(staging);
        }
        self.stream.synchronize()?;
        for buf in used {
            self.put(buf);
        }
        // Every buffer in the pool is idle again.
        let mut next = self.take(batches[0].len())?;
        next.fill(0.0);
        self.put(next);
        Ok(())
    }

    fn ok_each_upload_waited_for_before_its_buffer_goes_back(&mut self, batches: &[Vec<f32>], dev: &mut DeviceBuffer<f32>) -> Result<(), Error> {
        for batch in batches {
            let mut staging = self.take(batch.len())?;
            staging.copy_from_slice(batch);
            unsafe { self.stream.copy_htod_async(dev, &staging)? };
            self.stream.synchronize()?;
            self.put(staging);
        }
        Ok(())
    }

    fn ok_pool_handed_in_is_not_known_to_be_in_use(&mut self, batch: &[f32], dev: &mut DeviceBuffer<f32>) -> Result<(), Error> {
        // What earlier calls put in the pool is not known here: nothing in flight uses it.
        let mut staging = self.take(batch.len())?;
        staging.copy_from_slice(batch);
        unsafe { self.stream.copy_htod_async(dev, &staging)? };
        self.stream.synchronize()?;
        self.put(staging);
        Ok(())
    }

    fn fires_pushed_back_right_after_the_enqueue_then_popped_and_refilled(
        &mut self,
        first: &[f32],
        second: &[f32],
        dev_a: &mut DeviceBuffer<f32>,
        dev_b: &mut DeviceBuffer<f32>,
    ) -> Result<(), Error> {
        let mut staging = self.take(first.len())?;
        staging.copy_from_slice(first);
        unsafe { self.stream.copy_htod_async(dev_a, &staging)? };
        self.put(staging);
        // The pool gives back the buffer the first upload still reads.
        let mut again = self.take(second.len())?;
        again.copy_from_slice(second);
        //~^ missing_sync
        unsafe { self.stream.copy_htod_async(dev_b, &again)? };
        self.stream.synchronize()?;
        self.put(again);
        Ok(())
    }

    fn fires_loop_puts_each_buffer_back_without_waiting(&mut self, batches: &[Vec<f32>], devs: &mut [DeviceBuffer<f32>]) -> Result<(), Error> {
        for (batch, dev) in batches.iter().zip(devs.iter_mut()) {
            // From the second iteration on, this is the buffer the last upload still reads.
            let mut staging = self.take(batch.len())?;
            staging.copy_from_slice(batch);
            //~^ missing_sync
            unsafe { self.stream.copy_htod_async(dev, &staging)? };
            self.put(staging);
        }
        self.stream.synchronize()
    }
}

fn ok_new_staging_buffer_each_iteration_kept_until_the_sync(
    ctx: &Context,
    stream: &Stream,
    batches: &[Vec<f32>],
    devs: &mut [DeviceBuffer<f32>],
) -> Result<(), Error> {
    let mut in_flight = Vec::with_capacity(batches.len());
    for (batch, dev) in batches.iter().zip(devs.iter_mut()) {
        let mut staging = ctx.alloc_pinned::<f32>(batch.len())?;
        staging.copy_from_slice(batch);
        unsafe { stream.copy_htod_async(dev, &staging)? };
        in_flight.push(staging);
    }
    stream.synchronize()?;
    drop(in_flight);
    Ok(())
}

fn ok_new_readback_buffer_each_iteration_read_after_the_sync(
    ctx: &Context,
    stream: &Stream,
    devs: &[DeviceBuffer<f32>],
) -> Result<Vec<f32>, Error> {
    let mut outs = Vec::new();
    for dev in devs {
        let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
        unsafe { stream.copy_dtoh_async(&mut host, dev)? };
        outs.push(host);
    }
    stream.synchronize()?;
    Ok(outs.iter().map(|h| h[0]).collect())
}

fn fires_new_readback_buffers_read_after_the_loop_without_sync(
    ctx: &Context,
    stream: &Stream,
    devs: &[DeviceBuffer<f32>],
) -> Result<f32, Error> {
    let mut outs = Vec::new();
    for dev in devs {
        let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
        unsafe { stream.copy_dtoh_async(&mut host, dev)? };
        outs.push(host);
    }
    let total = outs.iter().map(|h| h[0]).sum();
    //~^ missing_sync
    stream.synchronize()?;
    Ok(total)
}

fn fires_loop_reads_the_previous_iterations_readback(
    ctx: &Context,
    stream: &Stream,
    devs: &[DeviceBuffer<f32>],
) -> Result<f32, Error> {
    let mut outs: Vec<PinnedBuffer<f32>> = Vec::new();
    let mut running = 0.0;
    for dev in devs {
        // The readback of the previous iteration may still be writing it.
        if let Some(prev) = outs.last() {
            running += prev[0];
            //~^ missing_sync
        }
        let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
        unsafe { stream.copy_dtoh_async(&mut host, dev)? };
        outs.push(host);
    }
    stream.synchronize()?;
    Ok(running)
}

fn fires_vec_pool_pushed_back_and_popped_in_one_function(
    ctx: &Context,
    stream: &Stream,
    pool: &mut Vec<PinnedBuffer<f32>>,
    dev: &mut DeviceBuffer<f32>,
) -> Result<(), Error> {
    let mut staging = pool.pop().map_or_else(|| ctx.alloc_pinned::<f32>(dev.len()), Ok)?;
    staging.fill(1.0);
    unsafe { stream.copy_htod_async(dev, &staging)? };
    pool.push(staging);
    let mut next = pool.pop().expect("just pushed");
    next.fill(2.0);
    //~^ missing_sync
    stream.synchronize()?;
    pool.push(next);
    Ok(())
}

fn ok_vec_pool_pushed_back_after_the_sync_then_popped(
    ctx: &Context,
    stream: &Stream,
    pool: &mut Vec<PinnedBuffer<f32>>,
    dev: &mut DeviceBuffer<f32>,
) -> Result<(), Error> {
    let mut staging = pool.pop().map_or_else(|| ctx.alloc_pinned::<f32>(dev.len()), Ok)?;
    staging.fill(1.0);
    unsafe { stream.copy_htod_async(dev, &staging)? };
    stream.synchronize()?;
    pool.push(staging);
    let mut next = pool.pop().expect("just pushed");
    next.fill(2.0);
    pool.push(next);
    Ok(())
}

fn ok_fresh_allocation_instead_of_the_pooled_buffer(
    ctx: &Context,
    stream: &Stream,
    pool: &mut Vec<PinnedBuffer<f32>>,
    dev: &mut DeviceBuffer<f32>,
) -> Result<(), Error> {
    // The in-flight buffer goes back to the pool, but the next write is to a new allocation.
    let mut staging = ctx.alloc_pinned::<f32>(dev.len())?;
    staging.fill(1.0);
    unsafe { stream.copy_htod_async(dev, &staging)? };
    pool.push(staging);
    let mut next = ctx.alloc_pinned::<f32>(dev.len())?;
    next.fill(2.0);
    stream.synchronize()?;
    pool.push(next);
    Ok(())
}

fn main() {}
