//@no-rustfix
// Some findings here have no machine-applicable fix: the fixes are checked in fixes.rs.
// Loops that visit a collection item by item (`for buf in &mut bufs`, `zip`, `chunks_mut`):
// each iteration gets another element, so work enqueued on earlier items does not race a write
// to the current one. After the loop, or in a second loop over the same collection, the
// elements are ones that work may still use.
use cuda_lint_runtime::{Context, DeviceBuffer, Error, PinnedBuffer, Stream};

fn ok_fill_each_staging_buffer_then_upload_it(
    stream: &Stream,
    staging: &mut [PinnedBuffer<f32>],
    dev: &mut [DeviceBuffer<f32>],
    src: &[f32],
) -> Result<(), Error> {
    let mut i = 0;
    for st in staging.iter_mut() {
        let n = st.len();
        st.copy_from_slice(&src[..n]);
        unsafe { stream.copy_htod_async(&mut dev[i], st)? };
        i += 1;
    }
    stream.synchronize()
}

fn ok_zip_fill_then_upload(stream: &Stream, staging: &mut Vec<PinnedBuffer<f32>>, dev: &mut [DeviceBuffer<f32>]) -> Result<(), Error> {
    for (st, d) in staging.iter_mut().zip(dev.iter_mut()) {
        st.fill(1.0);
        unsafe { stream.copy_htod_async(d, st)? };
    }
    stream.synchronize()
}

fn ok_chunks_filled_then_uploaded(ctx: &Context, stream: &Stream, dev: &mut [DeviceBuffer<f32>], src: &[f32]) -> Result<(), Error> {
    let mut pinned = ctx.alloc_pinned::<f32>(1 << 20)?;
    for (chunk, d) in pinned.chunks_mut(1024).zip(dev.iter_mut()) {
        chunk.copy_from_slice(&src[..1024]);
        unsafe { stream.copy_htod_async(d, chunk)? };
    }
    stream.synchronize()
}

fn ok_nested_zip_with_streams(
    streams: &[Stream],
    staging: &mut Vec<PinnedBuffer<f32>>,
    dev: &mut Vec<DeviceBuffer<f32>>,
    signal: &[f32],
) -> Result<(), Error> {
    for ((chunk, st), (d, s)) in signal.chunks(1024).zip(&mut *staging).zip(dev.iter_mut().zip(streams)) {
        st[..chunk.len()].copy_from_slice(chunk);
        unsafe { s.copy_htod_async(d, st)? };
    }
    for s in streams {
        s.synchronize()?;
    }
    Ok(())
}

fn fires_reading_an_element_after_the_loop(stream: &Stream, staging: &mut Vec<PinnedBuffer<f32>>, dev: &[DeviceBuffer<f32>]) -> Result<f32, Error> {
    for (st, d) in staging.iter_mut().zip(dev) {
        unsafe { stream.copy_dtoh_async(st, d)? };
    }
    let first = staging[0].iter().sum(); //~ missing_sync
    stream.synchronize()?;
    Ok(first)
}

fn fires_second_loop_reads_before_the_sync(stream: &Stream, staging: &mut Vec<PinnedBuffer<f32>>, dev: &[DeviceBuffer<f32>]) -> Result<f32, Error> {
    for (st, d) in staging.iter_mut().zip(dev) {
        unsafe { stream.copy_dtoh_async(st, d)? };
    }
    let mut total = 0.0;
    for st in staging.iter() {
        total += st[0]; //~ missing_sync
    }
    stream.synchronize()?;
    Ok(total)
}

fn fires_reading_the_current_item_after_its_own_copy(stream: &Stream, staging: &mut Vec<PinnedBuffer<f32>>, dev: &[DeviceBuffer<f32>]) -> Result<f32, Error> {
    let mut total = 0.0;
    for (st, d) in staging.iter_mut().zip(dev) {
        unsafe { stream.copy_dtoh_async(st, d)? };
        total += st[0]; //~ missing_sync
    }
    stream.synchronize()?;
    Ok(total)
}

fn fires_one_buffer_refilled_in_each_iteration(ctx: &Context, stream: &Stream, dev: &mut [DeviceBuffer<f32>]) -> Result<(), Error> {
    let mut pinned = ctx.alloc_pinned::<f32>(1 << 20)?;
    let mut shared = ctx.alloc_pinned::<f32>(1 << 20)?;
    for (chunk, d) in pinned.chunks_mut(1024).zip(dev.iter_mut()) {
        // Not an item: the same buffer the previous iteration's copy reads.
        shared.fill(1.0); //~ missing_sync
        unsafe { stream.copy_htod_async(d, &shared)? };
        chunk.fill(0.0);
    }
    stream.synchronize()
}

fn ok_wait_on_each_stream_of_an_array(a: &Stream, b: &Stream, host: &mut PinnedBuffer<f32>, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    unsafe { a.copy_dtoh_async(host, dev)? };
    for s in [a, b] {
        s.synchronize()?;
    }
    Ok(host.iter().sum())
}

fn fires_waiting_on_the_other_stream_of_an_array(ctx: &Context, host: &mut PinnedBuffer<f32>, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let (a, b) = (ctx.new_stream()?, ctx.new_stream()?);
    unsafe { a.copy_dtoh_async(host, dev)? };
    for s in [&b] {
        s.synchronize()?;
    }
    Ok(host.iter().sum()) //~ missing_sync
}

// `enumerate()` of a `zip`: each side still yields its own collection's items, and a buffer
// handle's memory is apart per item too: launching on buffer k+1 while buffer k downloads is
// no race.
const BUCKETS_SRC: &str = r#"
extern "C" __global__ void fill(float* bucket, unsigned window) { bucket[threadIdx.x] = window; }
"#;

fn ok_enumerated_zip_of_owned_buffers(
    ctx: &Context,
    compute: &Stream,
    copy: &Stream,
    dev: &[DeviceBuffer<f32>],
    host: &mut [PinnedBuffer<f32>],
    ready: &[cuda_lint_runtime::Event],
) -> Result<(), Error> {
    let k = &ctx.load_cuda(BUCKETS_SRC)?.function("fill")?;
    for (w, ((d, h), ev)) in dev.iter().zip(host.iter_mut()).zip(ready).enumerate() {
        let window = w as u32;
        unsafe { compute.launch(k, cuda_lint_runtime::LaunchConfig::for_num_elems(256), &[d, &window])? };
        compute.record_event(ev)?;
        copy.wait_event(ev)?;
        unsafe { copy.copy_dtoh_async(h, d)? };
    }
    copy.synchronize()?;
    let _sums: Vec<f32> = host.iter().map(|h| h.iter().sum()).collect();
    Ok(())
}

// A double buffer of two slots built apart (`[mk()?, mk()?]`), picked by `i % 2`: each slot's
// event is waited for before that slot is refilled, and `filter` gets a reference to each
// slot (`&&mut Slot`), whose flag it reads.
struct Slot {
    stream: Stream,
    done: cuda_lint_runtime::Event,
    host_in: PinnedBuffer<f32>,
    dev_in: DeviceBuffer<f32>,
    pending: Option<usize>,
}

struct DoubleBuffer {
    slots: [Slot; 2],
}

impl DoubleBuffer {
    fn new(ctx: &Context, n: usize) -> Result<DoubleBuffer, Error> {
        let mk = || -> Result<Slot, Error> {
            Ok(Slot {
                stream: ctx.new_stream()?,
                done: ctx.new_event()?,
                host_in: ctx.alloc_pinned(n)?,
                dev_in: ctx.alloc(n)?,
                pending: None,
            })
        };
        Ok(DoubleBuffer { slots: [mk()?, mk()?] })
    }

    fn ok_each_slot_waited_before_it_is_refilled(&mut self, input: &[Vec<f32>]) -> Result<(), Error> {
        for (i, batch) in input.iter().enumerate() {
            let slot = &mut self.slots[i % 2];
            slot.done.synchronize()?;
            slot.host_in[..batch.len()].copy_from_slice(batch);
            unsafe { slot.stream.copy_htod_async(&mut slot.dev_in, &slot.host_in)? };
            slot.stream.record_event(&slot.done)?;
            slot.pending = Some(i);
        }
        let tail: Vec<&mut Slot> = self.slots.iter_mut().filter(|s| s.pending.is_some()).collect();
        for slot in tail {
            slot.done.synchronize()?;
        }
        Ok(())
    }

    fn fires_slot_refilled_without_waiting(&mut self, input: &[Vec<f32>]) -> Result<(), Error> {
        for (i, batch) in input.iter().enumerate() {
            let slot = &mut self.slots[i % 2];
            slot.host_in[..batch.len()].copy_from_slice(batch); //~ missing_sync
            unsafe { slot.stream.copy_htod_async(&mut slot.dev_in, &slot.host_in)? };
        }
        Ok(())
    }
}

fn main() {}
