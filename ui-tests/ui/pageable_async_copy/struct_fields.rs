use cuda_lint_runtime::{Context, DeviceBuffer, Error, PinnedBuffer, RegisteredHost, Stream};

/// A staging area whose host side is an ordinary `Vec`.
struct Staging {
    host: Vec<f32>,
    dev: DeviceBuffer<f32>,
    stream: Stream,
}

/// The same with pinned host memory.
struct PinnedStaging {
    host: PinnedBuffer<f32>,
    dev: DeviceBuffer<f32>,
    stream: Stream,
}

struct Frame {
    pixels: Vec<u8>,
    width: usize,
}

struct Decoder {
    frame: Frame,
    dev_pixels: DeviceBuffer<u8>,
}

struct Locked<'a> {
    host: RegisteredHost<'a, f32>,
    dev: DeviceBuffer<f32>,
}

struct Pool {
    slots: Vec<PinnedBuffer<f32>>,
    spare: Option<PinnedBuffer<f32>>,
}

impl Staging {
    fn new(ctx: &Context, n: usize) -> Result<Staging, Error> {
        Ok(Staging { host: vec![0.0; n], dev: ctx.alloc(n)?, stream: ctx.new_stream()? })
    }

    fn fires_upload_method(&mut self) -> Result<(), Error> {
        unsafe { self.stream.copy_htod_async(&mut self.dev, &self.host) }
        //~^ pageable_async_copy
    }
}

fn fires_vec_field_of_parameter(st: &mut Staging) -> Result<(), Error> {
    st.host.fill(1.0);
    unsafe { st.stream.copy_htod_async(&mut st.dev, &st.host)? };
    //~^ pageable_async_copy
    st.stream.synchronize()
}

fn fires_readback_into_vec_field(st: &mut Staging) -> Result<(), Error> {
    unsafe { st.stream.copy_dtoh_async(&mut st.host, &st.dev)? };
    //~^ pageable_async_copy
    st.stream.synchronize()
}

fn fires_local_struct_with_vec_field(ctx: &Context, s: &Stream, w: usize) -> Result<(), Error> {
    let frame = Frame { pixels: vec![0u8; w * w], width: w };
    let mut dev = ctx.alloc::<u8>(frame.width * frame.width)?;
    unsafe { s.copy_htod_async(&mut dev, &frame.pixels)? };
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_nested_field(dec: &mut Decoder, s: &Stream) -> Result<(), Error> {
    unsafe { s.copy_htod_async(&mut dec.dev_pixels, &dec.frame.pixels)? };
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_tuple_of_host_and_device(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let mut pair = (vec![2.0f32; 128], ctx.alloc::<f32>(128)?);
    unsafe { s.copy_htod_async(&mut pair.1, &pair.0)? };
    //~^ pageable_async_copy
    s.synchronize()
}

struct Histogram {
    bins: Box<[u32]>,
    dev_bins: DeviceBuffer<u32>,
}

fn fires_boxed_slice_field(h: &mut Histogram, s: &Stream) -> Result<u32, Error> {
    unsafe { s.copy_dtoh_async(&mut h.bins, &h.dev_bins)? };
    //~^ pageable_async_copy
    s.synchronize()?;
    Ok(h.bins.iter().sum())
}

fn ok_constructor_then_blocking_upload(ctx: &Context) -> Result<(), Error> {
    let mut st = Staging::new(ctx, 1024)?;
    st.host.fill(0.5);
    st.stream.copy_htod(&mut st.dev, &st.host)
}

fn ok_pinned_field(st: &mut PinnedStaging) -> Result<(), Error> {
    st.host.fill(1.0);
    unsafe { st.stream.copy_htod_async(&mut st.dev, &st.host)? };
    st.stream.synchronize()
}

fn ok_readback_into_pinned_field(st: &mut PinnedStaging) -> Result<(), Error> {
    unsafe { st.stream.copy_dtoh_async(&mut st.host, &st.dev)? };
    st.stream.synchronize()
}

fn ok_registered_field(up: &mut Locked<'_>, s: &Stream) -> Result<(), Error> {
    unsafe { s.copy_htod_async(&mut up.dev, &up.host)? };
    s.synchronize()
}

fn ok_vec_field_blocking(st: &mut Staging) -> Result<(), Error> {
    st.stream.copy_htod(&mut st.dev, &st.host)
}

fn ok_local_struct_with_pinned_field(ctx: &Context) -> Result<(), Error> {
    let mut st = PinnedStaging { host: ctx.alloc_pinned(1024)?, dev: ctx.alloc(1024)?, stream: ctx.new_stream()? };
    unsafe { st.stream.copy_htod_async(&mut st.dev, &st.host)? };
    st.stream.synchronize()
}

fn ok_option_pinned_field(pool: &mut Pool, ctx: &Context, s: &Stream) -> Result<(), Error> {
    let mut dev = ctx.alloc::<f32>(256)?;
    if let Some(spare) = &pool.spare {
        unsafe { s.copy_htod_async(&mut dev, spare)? };
    }
    s.synchronize()
}

fn ok_vec_of_pinned_field(pool: &mut Pool, ctx: &Context, s: &Stream) -> Result<(), Error> {
    let mut dev = ctx.alloc::<f32>(256)?;
    for slot in &pool.slots {
        unsafe { s.copy_htod_async(&mut dev, slot)? };
        s.synchronize()?;
    }
    Ok(())
}

fn ok_vec_of_pinned_by_index(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let slots = vec![ctx.alloc_pinned::<f32>(256)?, ctx.alloc_pinned::<f32>(256)?];
    let mut dev = ctx.alloc::<f32>(256)?;
    unsafe { s.copy_htod_async(&mut dev, &slots[1])? };
    s.synchronize()
}

// Jobs handed over in a `Vec` (its memory is pageable): a job's pinned buffer is still pinned
// memory, not the `Vec`'s own.
struct Job {
    stream: Stream,
    dev: DeviceBuffer<f32>,
    host: cuda_lint_runtime::PinnedBuffer<f32>,
}

fn finish(mut job: Job) -> Result<f32, Error> {
    unsafe { job.stream.copy_dtoh_async(&mut job.host, &job.dev)? };
    job.stream.synchronize()?;
    Ok(job.host.iter().sum())
}

fn ok_pinned_field_of_jobs_in_a_vec(jobs: Vec<Job>) -> Result<Vec<f32>, Error> {
    jobs.into_iter().map(|j| finish(j)).collect()
}

fn main() {}
