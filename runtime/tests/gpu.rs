//! GPU integration tests of cuda-lint-runtime, against the real driver.
//!
//! `harness = false`: this is a plain program. Without a CUDA driver or device it prints one line,
//! `SKIP runtime GPU tests: <reason>`, and exits 0. Otherwise it prints the device, runs every
//! test (or those whose name contains the first non-flag argument), prints
//! `test <name> ... ok` / `test <name> ... FAILED: <error>` and a summary, and exits 1 if any
//! failed.
//!
//! ```text
//! cargo test -p cuda-lint-runtime --test gpu            # all
//! cargo test -p cuda-lint-runtime --test gpu -- vmm     # those whose name contains "vmm"
//! ```

use std::error::Error as StdError;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::OnceLock;
use std::time::Instant;

use cuda_lint_runtime::{
    AccessFlags, Context, DeviceBuffer, DeviceMemory, DeviceProperties, DevicePtr, Error, EventTimer, Kernel,
    LaunchConfig, Mapping, Module, PhysicalAllocation, PinnedFlags, Ptx, Stream, VirtualRange, device_count,
    driver_version, init, nvrtc_version, time_ms,
};
use cudarc::driver::sys;

type TResult = Result<String, Box<dyn StdError>>;

macro_rules! ensure {
    ($cond:expr, $($fmt:tt)+) => {
        let ok: bool = $cond;
        if !ok {
            return Err(format!($($fmt)+).into());
        }
    };
}

/// Every kernel the tests launch, compiled once.
const KERNELS: &str = r#"
extern "C" __global__ void empty() {}

extern "C" __global__ void spin(long long cycles) {
    long long t = clock64();
    while (clock64() - t < cycles) {}
}

extern "C" __global__ void spin_then_write(long long cycles, int* flag, int value) {
    long long t = clock64();
    while (clock64() - t < cycles) {}
    if (threadIdx.x == 0 && blockIdx.x == 0) *flag = value;
}

extern "C" __global__ void fill_iota(unsigned* out, unsigned n, unsigned mul) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = i * mul;
}

extern "C" __global__ void write_u32(unsigned* out, unsigned n, unsigned base) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = base + i;
}

extern "C" __global__ void add_one_u32(unsigned* x, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1u;
}

extern "C" __global__ void copy_u32(unsigned* out, const unsigned* in, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}

extern "C" __global__ void scale_from(float* out, const float* in, float a, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * in[i];
}

extern "C" __global__ void grid2d(unsigned* out, unsigned w, unsigned h) {
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) out[y * w + x] = x * 1000u + y;
}

extern "C" __global__ void block_sum(const unsigned* in, unsigned* out, unsigned n) {
    extern __shared__ unsigned sh[];
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + t;
    sh[t] = i < n ? in[i] : 0u;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) sh[t] += sh[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = sh[0];
}

extern "C" __global__ void scalars(double* out, signed char a, short b, int c, long long d,
                                   unsigned char e, unsigned short f, unsigned g,
                                   unsigned long long h, float x, double y, long long z,
                                   unsigned long long u, const unsigned* p) {
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        out[0] = a; out[1] = b; out[2] = c; out[3] = (double)d; out[4] = e; out[5] = f;
        out[6] = g; out[7] = (double)h; out[8] = x; out[9] = y; out[10] = (double)z;
        out[11] = (double)u; out[12] = p[0];
    }
}
"#;

struct Fx {
    ctx: Context,
    props: DeviceProperties,
    module: OnceLock<Result<Module, String>>,
}

impl Fx {
    fn module(&self) -> Result<&Module, Box<dyn StdError>> {
        self.module
            .get_or_init(|| self.ctx.load_cuda(KERNELS).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|e| format!("compiling the test kernels failed: {e}").into())
    }

    fn kernel(&self, name: &str) -> Result<Kernel, Box<dyn StdError>> {
        Ok(self.module()?.function(name)?)
    }

    /// `clock64()` cycles for about `ms` milliseconds.
    fn cycles(&self, ms: i64) -> i64 {
        i64::from(self.props.clock_rate_khz.max(1)) * ms
    }
}

fn current_context() -> Result<sys::CUcontext, Box<dyn StdError>> {
    let mut cur: sys::CUcontext = std::ptr::null_mut();
    // SAFETY: out-pointer to a local; the driver is loaded (a Context exists).
    let r = unsafe { sys::cuCtxGetCurrent(&mut cur) };
    ensure!(r == sys::CUresult::CUDA_SUCCESS, "cuCtxGetCurrent: {r:?}");
    Ok(cur)
}

fn expect_driver_error<T>(r: cuda_lint_runtime::Result<T>, call: &str, name: &str) -> TResult {
    match r {
        Err(e @ Error::Driver { .. }) => {
            ensure!(e.call() == Some(call), "expected a {call} error, got {e}");
            ensure!(e.cuda_error_name() == Some(name), "expected {name}, got {e}");
            Ok(e.to_string())
        }
        Err(e) => Err(format!("expected {call} failing with {name}, got {e:?}").into()),
        Ok(_) => Err(format!("expected {call} failing with {name}, got Ok").into()),
    }
}

fn launch1(
    s: &Stream,
    k: &Kernel,
    n: u32,
    args: &[&dyn cuda_lint_runtime::KernelArg],
) -> cuda_lint_runtime::Result<()> {
    // SAFETY: every caller passes arguments matching the kernel (see KERNELS) and keeps the
    // buffers alive until it synchronizes.
    unsafe { s.launch(k, LaunchConfig::for_num_elems(n), args) }
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

fn device_info(fx: &Fx) -> TResult {
    init()?;
    let v = driver_version()?;
    ensure!(v >= 11000, "driver version {v} too small");
    let n = device_count()?;
    ensure!(n >= 1, "device_count {n}");
    let d = cuda_lint_runtime::Device::get(0)?;
    ensure!(d == fx.ctx.device(), "Device::get(0) differs from the context's device");
    let p = d.properties()?;
    ensure!(!p.name.is_empty(), "empty name");
    ensure!(
        p.compute_capability.0 >= 3,
        "compute capability {:?}",
        p.compute_capability
    );
    ensure!(p.total_memory_bytes > 0, "no memory");
    ensure!(p.multiprocessor_count > 0, "no SMs");
    ensure!(p.warp_size == 32, "warp size {}", p.warp_size);
    ensure!(p.clock_rate_khz > 0, "clock rate 0");
    ensure!(
        p.max_threads_per_block >= 256,
        "max threads {}",
        p.max_threads_per_block
    );
    match cuda_lint_runtime::Device::get(n) {
        Err(Error::InvalidArgument { .. }) => {}
        other => {
            return Err(format!("Device::get({n}) should be InvalidArgument: {other:?}").into());
        }
    }
    let (free, total) = fx.ctx.mem_get_info()?;
    ensure!(free <= total && total > 0, "mem_get_info {free} / {total}");
    Ok(format!(
        "{n} device(s); {} SMs @ {} MHz, {:.1} GiB ({:.1} free), vmm={} managed={} \
         concurrent_managed={} uva={} map_host={} host_register={} copy_engines={}",
        p.multiprocessor_count,
        p.clock_rate_khz / 1000,
        p.total_memory_bytes as f64 / (1u64 << 30) as f64,
        free as f64 / (1u64 << 30) as f64,
        p.supports_vmm,
        p.supports_managed_memory,
        p.concurrent_managed_access,
        p.unified_addressing,
        p.can_map_host_memory,
        p.host_register_supported,
        p.async_engine_count
    ))
}

fn context_per_thread(fx: &Fx) -> TResult {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Context>();
    assert_send_sync::<Stream>();
    assert_send_sync::<DeviceBuffer<f32>>();

    // A second retain of the primary context is the same context; dropping it keeps ours alive.
    let again = Context::new(0)?;
    ensure!(
        again.same_context(&fx.ctx),
        "Context::new(0) twice gave different contexts"
    );
    drop(again);
    let s = fx.ctx.new_stream()?;
    let d = s.clone_htod(&[1u32, 2, 3])?;
    ensure!(
        s.clone_dtoh(&d)? == [1, 2, 3],
        "context unusable after dropping a second retain"
    );

    let ctx = fx.ctx.clone();
    let worker = std::thread::spawn(move || -> Result<(), String> {
        let run = || -> TResult {
            ensure!(
                current_context()?.is_null(),
                "a fresh thread should have no current context"
            );
            // Any runtime call binds the context on this thread.
            let s = ctx.new_stream()?;
            ensure!(
                current_context()? == ctx.as_raw(),
                "new_stream did not bind the context"
            );
            let d = s.clone_htod(&[4u32, 5, 6])?;
            ensure!(s.clone_dtoh(&d)? == [4, 5, 6], "copy on the worker thread");
            // Someone unbinds it behind our back: the next call binds it again.
            // SAFETY: setting no context current is always allowed.
            unsafe { sys::cuCtxSetCurrent(std::ptr::null_mut()) };
            ensure!(current_context()?.is_null(), "unbind failed");
            s.synchronize()?;
            ensure!(current_context()? == ctx.as_raw(), "synchronize did not rebind");
            unsafe { sys::cuCtxSetCurrent(std::ptr::null_mut()) };
            ctx.bind_to_thread()?;
            ensure!(current_context()? == ctx.as_raw(), "bind_to_thread did not bind");
            Ok(String::new())
        };
        run().map(|_| ()).map_err(|e| e.to_string())
    });
    worker.join().map_err(|_| "worker thread panicked".to_string())??;

    // A buffer made here, freed on another thread.
    let d = fx.ctx.alloc::<u64>(1000)?;
    std::thread::spawn(move || drop(d))
        .join()
        .map_err(|_| "drop on another thread panicked")?;
    Ok("worker thread bound the context by itself; rebinding after cuCtxSetCurrent(NULL)".into())
}

fn device_alloc(fx: &Fx) -> TResult {
    let ctx = &fx.ctx;
    let s = ctx.new_stream()?;
    let a = ctx.alloc::<u32>(1000)?;
    ensure!(a.len() == 1000 && a.num_bytes() == 4000, "len/bytes");
    ensure!(!a.device_ptr().is_null(), "null pointer");
    ensure!(a.device_ptr().as_raw() % 256 == 0, "cuMemAlloc alignment");
    // Dirty memory, freed, then a zeroed allocation of the same size reads as zeros.
    {
        let mut dirty = ctx.alloc::<u64>(4097)?;
        s.memset_d8(&mut dirty, 0xff)?;
    }
    let z = ctx.alloc_zeroed::<u64>(4097)?;
    ensure!(s.clone_dtoh(&z)?.iter().all(|&v| v == 0), "alloc_zeroed not zero");

    // Zero-length: no driver call, null pointer, copies and memsets of nothing work.
    let mut empty = ctx.alloc::<f32>(0)?;
    ensure!(empty.is_empty() && empty.device_ptr().is_null(), "empty buffer");
    s.copy_htod(&mut empty, &[])?;
    ensure!(s.clone_dtoh(&empty)?.is_empty(), "empty dtoh");
    s.memset_d8(&mut empty, 1)?;
    s.memset_d32(&mut empty, 1)?;
    let e2 = s.clone_htod::<f32>(&[])?;
    s.copy_dtod(&mut empty, &e2)?;
    let _ = ctx.alloc_zeroed::<u8>(0)?;

    // Raw parts round trip: the pointer is freed once, by the second owner.
    let b = s.clone_htod(&[5u32; 16])?;
    let len = b.len();
    let p: DevicePtr = b.into_raw();
    // SAFETY: `p` came from into_raw of a 16-element buffer of this context.
    let b2 = unsafe { DeviceBuffer::<u32>::from_raw_parts(ctx, p, len) };
    ensure!(b2.device_ptr() == p, "from_raw_parts pointer");
    ensure!(s.clone_dtoh(&b2)? == vec![5u32; 16], "from_raw_parts contents");
    drop(b2);

    match ctx.alloc::<u64>(usize::MAX) {
        Err(Error::InvalidArgument { .. }) => {}
        other => {
            return Err(format!("overflowing size should be InvalidArgument: {other:?}").into());
        }
    }
    Ok(String::new())
}

fn pinned_alloc(fx: &Fx) -> TResult {
    let ctx = &fx.ctx;
    let s = ctx.new_stream()?;
    let n = 4096usize;
    let all = [
        PinnedFlags::default(),
        PinnedFlags {
            portable: true,
            ..Default::default()
        },
        PinnedFlags {
            write_combined: true,
            ..Default::default()
        },
        PinnedFlags {
            device_mapped: true,
            ..Default::default()
        },
        PinnedFlags {
            portable: true,
            device_mapped: true,
            write_combined: true,
        },
    ];
    for flags in all {
        let mut p = ctx.alloc_pinned_with_flags::<u32>(n, flags)?;
        ensure!(p.flags() == flags, "flags");
        ensure!(p.len() == n && p.num_bytes() == 4 * n, "len");
        ensure!(p.iter().all(|&v| v == 0), "pinned {flags:?} not zero-filled");
        for (i, v) in p.iter_mut().enumerate() {
            *v = i as u32 * 7 + 1;
        }
        let d = s.clone_htod(&p)?;
        let mut q = ctx.alloc_pinned::<u32>(n)?;
        s.copy_dtoh(&mut q, &d)?;
        ensure!(q[..] == p[..], "round trip through the device with {flags:?}");
        if flags.device_mapped {
            ensure!(!p.mapped_device_ptr()?.is_null(), "mapped pointer null");
        } else {
            match p.mapped_device_ptr() {
                Err(Error::InvalidArgument { .. }) => {}
                other => return Err(format!("mapped_device_ptr on {flags:?}: {other:?}").into()),
            }
        }
    }
    let e = ctx.alloc_pinned::<u8>(0)?;
    ensure!(e.is_empty(), "empty pinned");
    Ok("default, portable, write-combined, device-mapped, all".into())
}

fn mapped_pinned_kernel(fx: &Fx) -> TResult {
    if !fx.props.can_map_host_memory {
        return Ok("skipped: CAN_MAP_HOST_MEMORY is 0".into());
    }
    let ctx = &fx.ctx;
    let s = ctx.new_stream()?;
    let n = 10_000u32;
    let mapped = PinnedFlags {
        device_mapped: true,
        ..Default::default()
    };
    // The kernel reads host memory through its mapped device pointer.
    let mut host_in = ctx.alloc_pinned_with_flags::<f32>(n as usize, mapped)?;
    for (i, v) in host_in.iter_mut().enumerate() {
        *v = i as f32;
    }
    let dp = host_in.mapped_device_ptr()?;
    let out = ctx.alloc_zeroed::<f32>(n as usize)?;
    let k = fx.kernel("scale_from")?;
    launch1(&s, &k, n, &[&out, &dp, &3.0f32, &n])?;
    let got = s.clone_dtoh(&out)?;
    ensure!(
        got.iter().enumerate().all(|(i, &v)| v == 3.0 * i as f32),
        "kernel read of mapped pinned memory"
    );
    // ... and writes host memory through it, visible to the host after synchronizing.
    let host_out = ctx.alloc_pinned_with_flags::<u32>(n as usize, mapped)?;
    let dp_out = host_out.mapped_device_ptr()?;
    launch1(&s, &fx.kernel("write_u32")?, n, &[&dp_out, &n, &100u32])?;
    s.synchronize()?;
    ensure!(
        host_out.iter().enumerate().all(|(i, &v)| v == 100 + i as u32),
        "kernel write to mapped pinned memory"
    );
    drop(host_in);
    Ok(format!("mapped at {dp}"))
}

fn register_host(fx: &Fx) -> TResult {
    if !fx.props.host_register_supported {
        return Ok("skipped: HOST_REGISTER_SUPPORTED is 0".into());
    }
    let ctx = &fx.ctx;
    let s = ctx.new_stream()?;
    let n = 1usize << 16;
    let mut v: Vec<u32> = (0..n as u32).collect();
    {
        let mut reg = ctx.register_host(&mut v)?;
        ensure!(reg.len() == n && reg.num_bytes() == 4 * n, "len");
        // Registered: a second registration of the same range is refused by the driver.
        // SAFETY: the range is live; the call is expected to fail without side effects.
        let again = unsafe { sys::cuMemHostRegister_v2(reg.as_mut_ptr().cast(), reg.num_bytes(), 0) };
        ensure!(
            again == sys::CUresult::CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
            "second registration returned {again:?}"
        );
        let mut d = ctx.alloc::<u32>(n)?;
        // SAFETY: `reg` is not touched until the stream is synchronized below.
        unsafe { s.copy_htod_async(&mut d, &reg)? };
        launch1(&s, &fx.kernel("add_one_u32")?, n as u32, &[&d, &(n as u32)])?;
        // SAFETY: as above.
        unsafe { s.copy_dtoh_async(&mut reg, &d)? };
        s.synchronize()?;
        ensure!(
            reg.iter().enumerate().all(|(i, &x)| x == i as u32 + 1),
            "data through registered memory"
        );
        reg[0] = 77;
    }
    ensure!(v[0] == 77 && v[1] == 2, "writes through the guard reach the Vec");
    // Unregistered on drop: registering again succeeds.
    let reg2 = ctx.register_host(&mut v)?;
    drop(reg2);
    let mut nothing: [u32; 0] = [];
    let _ = ctx.register_host(&mut nothing)?;
    Ok(String::new())
}

fn managed_kernel(fx: &Fx) -> TResult {
    if !fx.props.supports_managed_memory {
        return Ok("skipped: MANAGED_MEMORY is 0".into());
    }
    let ctx = &fx.ctx;
    let s = ctx.new_stream()?;
    let n = 64 * 1024u32; // 256 KiB: managed memory stays small
    let mut m = ctx.alloc_managed::<u32>(n as usize)?;
    ensure!(
        m.num_elems() == n as usize && m.iter().all(|&v| v == 0),
        "managed not zero-filled"
    );
    for (i, v) in m.iter_mut().enumerate() {
        *v = i as u32;
    }
    launch1(&s, &fx.kernel("add_one_u32")?, n, &[&m, &n])?;
    s.synchronize()?;
    ensure!(
        m.iter().enumerate().all(|(i, &v)| v == i as u32 + 1),
        "host read after kernel + sync"
    );
    launch1(&s, &fx.kernel("fill_iota")?, n, &[&m, &n, &5u32])?;
    s.synchronize()?;
    ensure!(
        m.iter().enumerate().all(|(i, &v)| v == 5 * i as u32),
        "fill_iota via managed"
    );
    s.memset_d32(&mut m, 0xABCD)?;
    ensure!(m.iter().all(|&v| v == 0xABCD), "memset_d32 on managed");
    let e = ctx.alloc_managed::<u32>(0)?;
    ensure!(e.is_empty() && e.device_ptr().is_null(), "empty managed");
    Ok(String::new())
}

fn out_of_memory(fx: &Fx) -> TResult {
    let msg = expect_driver_error(
        fx.ctx.alloc::<u8>(1usize << 50),
        "cuMemAlloc_v2",
        "CUDA_ERROR_OUT_OF_MEMORY",
    )?;
    // Not sticky: the context still works.
    let s = fx.ctx.new_stream()?;
    let d = s.clone_htod(&[9u8; 3])?;
    ensure!(s.clone_dtoh(&d)? == [9, 9, 9], "context after OOM");
    Ok(msg)
}

fn streams_and_events(fx: &Fx) -> TResult {
    let ctx = &fx.ctx;
    let s1 = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    let e = ctx.new_event()?;
    ensure!(!e.is_timing(), "new_event must not time");
    ensure!(e.query()?, "an unrecorded event is complete");
    e.synchronize()?;
    ensure!(s1.query()?, "an idle stream is complete");

    let flag = ctx.alloc_zeroed::<i32>(1)?;
    let mut out = ctx.alloc_zeroed::<i32>(1)?;
    let k = fx.kernel("spin_then_write")?;
    let cycles = fx.cycles(20);
    let one = LaunchConfig {
        grid: (1, 1, 1),
        block: (1, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: (long long, int*, int) as declared; buffers outlive the synchronization below.
    unsafe { s1.launch(&k, one, &[&cycles, &flag, &42i32])? };
    s1.record_event(&e)?;
    let s1_busy = !s1.query()?;
    let e_busy = !e.query()?;
    // s2 waits for the event: its copy runs after the kernel wrote 42.
    s2.wait_event(&e)?;
    s2.copy_dtod_async(&mut out, &flag)?;
    s2.synchronize()?;
    ensure!(s2.clone_dtoh(&out)? == [42], "cross-stream wait did not order the copy");
    ensure!(e.query()? && s1.query()?, "event and s1 complete after s2 synchronized");
    ensure!(s1_busy && e_busy, "s1/event reported complete while a 20 ms kernel ran");

    // Timing events.
    let t0 = ctx.new_timing_event()?;
    let t1 = ctx.new_timing_event()?;
    s1.record_event(&t0)?;
    let five = fx.cycles(5);
    // SAFETY: spin(long long).
    unsafe { s1.launch(&fx.kernel("spin")?, one, &[&five])? };
    s1.record_event(&t1)?;
    t1.synchronize()?;
    let ms = t1.elapsed_ms(&t0)?;
    ensure!(ms > 2.0 && ms < 2000.0, "5 ms spin measured {ms} ms");
    match t1.elapsed_ms(&e) {
        Err(Error::InvalidArgument { .. }) => {}
        other => return Err(format!("elapsed_ms with a non-timing event: {other:?}").into()),
    }
    ctx.synchronize()?;
    Ok(format!("spin 5 ms measured {ms:.2} ms"))
}

// Async copies from and into `Vec`s are part of what is tested: the runtime accepts pageable
// memory exactly as CUDA does.
#[cfg_attr(cuda_lint, allow(cuda_lint::pageable_async_copy))]
fn copies_and_memsets(fx: &Fx) -> TResult {
    let ctx = &fx.ctx;
    let s = ctx.new_stream()?;
    let n = 1usize << 16;
    let src: Vec<u32> = (0..n as u32).map(|i| i * 3 + 1).collect();

    // Blocking forms.
    let mut d = ctx.alloc::<u32>(n)?;
    s.copy_htod(&mut d, &src)?;
    let mut back = vec![0u32; n];
    s.copy_dtoh(&mut back, &d)?;
    ensure!(back == src, "copy_htod/copy_dtoh");
    let mut d2 = ctx.alloc::<u32>(n)?;
    s.copy_dtod(&mut d2, &d)?;
    ensure!(s.clone_dtoh(&d2)? == src, "copy_dtod");
    ensure!(s.clone_dtoh(&s.clone_htod(&src)?)? == src, "clone_htod/clone_dtoh");

    // Async forms through pinned memory.
    let mut hp = ctx.alloc_pinned::<u32>(n)?;
    hp.copy_from_slice(&src);
    let mut d3 = ctx.alloc::<u32>(n)?;
    s.memset_d8_async(&mut d2, 0)?;
    // SAFETY: hp is not written until the synchronize below.
    unsafe { s.copy_htod_async(&mut d3, &hp)? };
    s.copy_dtod_async(&mut d2, &d3)?;
    let mut hp2 = ctx.alloc_pinned::<u32>(n)?;
    // SAFETY: hp2 is not read until the synchronize below.
    unsafe { s.copy_dtoh_async(&mut hp2, &d2)? };
    s.synchronize()?;
    ensure!(hp2[..] == src[..], "async htod -> dtod -> dtoh through pinned memory");

    // Async forms with pageable memory are accepted (and block), as in CUDA.
    let mut pv = vec![0u32; n];
    // SAFETY: pv is not read until the synchronize below.
    unsafe { s.copy_dtoh_async(&mut pv, &d3)? };
    s.synchronize()?;
    ensure!(pv == src, "async dtoh into pageable memory");
    let rev: Vec<u32> = src.iter().rev().copied().collect();
    // SAFETY: rev is not written until the synchronize below.
    unsafe { s.copy_htod_async(&mut d, &rev)? };
    s.synchronize()?;
    ensure!(s.clone_dtoh(&d)? == rev, "async htod from pageable memory");

    // Memsets, blocking and async.
    s.memset_d8(&mut d, 0xAB)?;
    ensure!(s.clone_dtoh(&d)?.iter().all(|&v| v == 0xABAB_ABAB), "memset_d8");
    s.memset_d32(&mut d, 0xDEAD_BEEF)?;
    ensure!(s.clone_dtoh(&d)?.iter().all(|&v| v == 0xDEAD_BEEF), "memset_d32");
    s.memset_d8_async(&mut d2, 0)?;
    s.memset_d32_async(&mut d3, 7)?;
    s.synchronize()?;
    ensure!(s.clone_dtoh(&d2)?.iter().all(|&v| v == 0), "memset_d8_async");
    ensure!(s.clone_dtoh(&d3)?.iter().all(|&v| v == 7), "memset_d32_async");
    let mut odd = ctx.alloc::<u8>(7)?;
    s.memset_d8(&mut odd, 3)?;
    ensure!(s.clone_dtoh(&odd)? == [3u8; 7], "memset_d8 of 7 bytes");
    let mut six = ctx.alloc::<u8>(6)?;
    match s.memset_d32(&mut six, 1) {
        Err(Error::InvalidArgument { .. }) => {}
        other => return Err(format!("memset_d32 of 6 bytes: {other:?}").into()),
    }
    // Element types other than u32.
    let f: Vec<f64> = (0..1000).map(|i| i as f64 * 0.5).collect();
    ensure!(s.clone_dtoh(&s.clone_htod(&f)?)? == f, "f64 round trip");
    let arr: Vec<[i16; 3]> = (0..100).map(|i| [i, -i, i * 2]).collect();
    ensure!(s.clone_dtoh(&s.clone_htod(&arr)?)? == arr, "[i16; 3] round trip");
    Ok(String::new())
}

// The copies never run: their lengths are checked first.
#[cfg_attr(cuda_lint, allow(cuda_lint::pageable_async_copy))]
fn length_mismatch(fx: &Fx) -> TResult {
    let ctx = &fx.ctx;
    let s = ctx.new_stream()?;
    let mut d = ctx.alloc::<f32>(4)?;
    let h3 = [0f32; 3];
    let mut h5 = [0f32; 5];
    let check =
        |r: cuda_lint_runtime::Result<()>, call: &str, dst: usize, src: usize| -> Result<(), Box<dyn StdError>> {
            match r {
                Err(Error::LengthMismatch {
                    call: c,
                    dst_len,
                    src_len,
                }) if c == call && dst_len == dst && src_len == src => Ok(()),
                other => Err(format!("expected LengthMismatch {call} {dst}/{src}, got {other:?}").into()),
            }
        };
    // SAFETY: nothing is enqueued (the lengths differ).
    check(unsafe { s.copy_htod_async(&mut d, &h3) }, "cuMemcpyHtoDAsync_v2", 4, 3)?;
    check(s.copy_htod(&mut d, &h3), "cuMemcpyHtoDAsync_v2", 4, 3)?;
    // SAFETY: as above.
    check(unsafe { s.copy_dtoh_async(&mut h5, &d) }, "cuMemcpyDtoHAsync_v2", 5, 4)?;
    check(s.copy_dtoh(&mut h5, &d), "cuMemcpyDtoHAsync_v2", 5, 4)?;
    let d2 = ctx.alloc_zeroed::<f32>(2)?;
    check(s.copy_dtod_async(&mut d, &d2), "cuMemcpyDtoDAsync_v2", 4, 2)?;
    check(s.copy_dtod(&mut d, &d2), "cuMemcpyDtoDAsync_v2", 4, 2)?;
    ensure!(s.query()?, "nothing may have been enqueued");
    let e = s.copy_htod(&mut d, &h3).unwrap_err();
    Ok(e.to_string())
}

const GOOD_SRC: &str = r#"
extern "C" __global__ void twice(float* x, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.0f;
}"#;

fn nvrtc_compile(fx: &Fx) -> TResult {
    let (maj, min) = nvrtc_version()?;
    let ptx = fx.ctx.compile_ptx(GOOD_SRC)?;
    ensure!(ptx.as_str().contains(".entry twice"), "no .entry twice in the PTX");
    let target = ptx
        .as_str()
        .lines()
        .find(|l| l.starts_with(".target"))
        .unwrap_or("(no .target)")
        .to_string();
    let (cmaj, cmin) = fx.props.compute_capability;
    ensure!(
        target.contains(&format!("{cmaj}{cmin}")),
        "PTX target {target} for sm_{cmaj}{cmin}"
    );
    let _ = fx.ctx.compile_ptx_with_options(GOOD_SRC, &["-lineinfo"])?;
    let explicit = Ptx::compile(
        GOOD_SRC,
        (cmaj, cmin),
        &[&format!("--gpu-architecture=compute_{cmaj}{cmin}")],
    )?;
    ensure!(explicit.as_str().contains(".entry twice"), "explicit arch");

    let bad = "extern \"C\" __global__ void k(float* x) { x[0] = undefined_thing; }";
    match fx.ctx.compile_ptx(bad) {
        Err(e @ Error::Nvrtc { .. }) => {
            let Error::Nvrtc { call, name, log } = &e else {
                unreachable!()
            };
            ensure!(*call == "nvrtcCompileProgram", "call {call}");
            ensure!(name == "NVRTC_ERROR_COMPILATION", "name {name}");
            let log = log.as_deref().unwrap_or("");
            ensure!(log.contains("undefined_thing"), "log does not name the error: {log:?}");
            ensure!(e.to_string().contains("undefined_thing"), "Display lacks the log");
        }
        other => return Err(format!("bad source should fail with the log: {other:?}").into()),
    }
    Ok(format!(
        "NVRTC {maj}.{min}; {} bytes of PTX, {target}",
        ptx.as_str().len()
    ))
}

fn module_and_function(fx: &Fx) -> TResult {
    let ctx = &fx.ctx;
    let ptx = ctx.compile_ptx(GOOD_SRC)?;
    let m = ctx.load_module(&ptx)?;
    let k = m.function("twice")?;
    ensure!(k.name() == "twice", "name");
    let missing = expect_driver_error(
        m.function("no_such_kernel"),
        "cuModuleGetFunction",
        "CUDA_ERROR_NOT_FOUND",
    )?;
    let bad = match ctx.load_module(&Ptx::from_src("this is not PTX")) {
        Err(
            e @ Error::Driver {
                call: "cuModuleLoadData",
                ..
            },
        ) => e.to_string(),
        other => return Err(format!("loading garbage PTX: {other:?}").into()),
    };
    // The Kernel keeps its module loaded after the Module handle is gone.
    let k2 = ctx.load_cuda(GOOD_SRC)?.function("twice")?;
    let s = ctx.new_stream()?;
    let d = s.clone_htod(&[1.0f32, 2.0, 3.0])?;
    launch1(&s, &k2, 3, &[&d, &3u32])?;
    ensure!(
        s.clone_dtoh(&d)? == [2.0, 4.0, 6.0],
        "kernel of a dropped Module handle"
    );
    drop(k);
    drop(m);
    Ok(format!("{missing}; {bad}"))
}

fn launch_configs_and_args(fx: &Fx) -> TResult {
    let ctx = &fx.ctx;
    let s = ctx.new_stream()?;

    // The call shape of the brief: `&[&buf_a, &buf_b, &n]` coerces to &[&dyn KernelArg].
    let n = 1000u32;
    let buf_a = ctx.alloc_zeroed::<f32>(n as usize)?;
    let buf_b = s.clone_htod(&(0..n).map(|i| i as f32).collect::<Vec<_>>())?;
    let scale = fx.kernel("scale_from")?;
    // SAFETY: scale_from(float*, const float*, float, unsigned).
    unsafe { s.launch(&scale, LaunchConfig::for_num_elems(n), &[&buf_a, &buf_b, &2.5f32, &n])? };
    let got = s.clone_dtoh(&buf_a)?;
    ensure!(got.iter().enumerate().all(|(i, &v)| v == 2.5 * i as f32), "1-D launch");

    // 2-D grid and block.
    let (w, h) = (300u32, 77u32);
    let out = ctx.alloc_zeroed::<u32>((w * h) as usize)?;
    let cfg = LaunchConfig {
        grid: (w.div_ceil(16), h.div_ceil(8), 1),
        block: (16, 8, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: grid2d(unsigned*, unsigned, unsigned).
    unsafe { s.launch(&fx.kernel("grid2d")?, cfg, &[&out, &w, &h])? };
    let got = s.clone_dtoh(&out)?;
    for y in 0..h {
        for x in 0..w {
            let v = got[(y * w + x) as usize];
            ensure!(v == x * 1000 + y, "grid2d at ({x},{y}) = {v}");
        }
    }

    // Dynamic shared memory.
    let n = 10_000u32;
    let input: Vec<u32> = (0..n).map(|i| i % 97).collect();
    let din = s.clone_htod(&input)?;
    let blocks = n.div_ceil(256);
    let sums = ctx.alloc_zeroed::<u32>(blocks as usize)?;
    let cfg = LaunchConfig::for_num_elems(n).with_shared_mem_bytes(256 * 4);
    // SAFETY: block_sum(const unsigned*, unsigned*, unsigned) with 256 * 4 bytes of shared memory.
    unsafe { s.launch(&fx.kernel("block_sum")?, cfg, &[&din, &sums, &n])? };
    let got = s.clone_dtoh(&sums)?;
    for (b, &v) in got.iter().enumerate() {
        let want: u32 = input.iter().skip(b * 256).take(256).sum();
        ensure!(v == want, "block {b} sum {v}, want {want}");
    }

    // Every scalar kind, a DevicePtr, and references to buffers.
    let out = ctx.alloc_zeroed::<f64>(13)?;
    let p = s.clone_htod(&[4242u32])?;
    let pp = p.device_ptr();
    let out_ref = &out;
    let args: [&dyn cuda_lint_runtime::KernelArg; 14] = [
        &out_ref,
        &-5i8,
        &-300i16,
        &-70_000i32,
        &-5_000_000_000i64,
        &200u8,
        &60_000u16,
        &4_000_000_000u32,
        &9_000_000_000u64,
        &1.5f32,
        &-2.25f64,
        &-7isize,
        &11usize,
        &pp,
    ];
    // SAFETY: matches `scalars`' 14 parameters.
    unsafe { s.launch(&fx.kernel("scalars")?, LaunchConfig::for_num_elems(1), &args)? };
    let got = s.clone_dtoh(&out)?;
    let want = [
        -5.0,
        -300.0,
        -70_000.0,
        -5_000_000_000.0,
        200.0,
        60_000.0,
        4_000_000_000.0,
        9_000_000_000.0,
        1.5,
        -2.25,
        -7.0,
        11.0,
        4242.0,
    ];
    ensure!(got == want, "scalar args: got {got:?}");

    // A bad configuration is refused before the driver.
    let bad = LaunchConfig {
        grid: (0, 1, 1),
        block: (1, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: refused before launching.
    match unsafe { s.launch(&fx.kernel("empty")?, bad, &[]) } {
        Err(Error::InvalidArgument { .. }) => {}
        other => return Err(format!("zero grid: {other:?}").into()),
    }
    // Too many threads per block is the driver's error.
    let too_big = LaunchConfig {
        grid: (1, 1, 1),
        block: (4096, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: empty() takes no arguments; the launch fails.
    let e = match unsafe { s.launch(&fx.kernel("empty")?, too_big, &[]) } {
        Err(
            e @ Error::Driver {
                call: "cuLaunchKernel", ..
            },
        ) => e.to_string(),
        other => return Err(format!("4096 threads per block: {other:?}").into()),
    };
    s.synchronize()?;
    Ok(e)
}

fn vmm_aliases(fx: &Fx) -> TResult {
    let ctx = &fx.ctx;
    if !ctx.vmm_supported()? {
        match PhysicalAllocation::new(ctx, 1 << 21) {
            Err(Error::Unsupported { .. }) => return Ok("VMM not supported: skipped".into()),
            other => return Err(format!("without VMM, PhysicalAllocation::new: {other:?}").into()),
        }
    }
    let gran = ctx.vmm_granularity()?;
    ensure!(gran > 0 && gran.is_power_of_two(), "granularity {gran}");
    match PhysicalAllocation::new(ctx, gran + 1) {
        Err(Error::InvalidArgument { .. }) => {}
        other => return Err(format!("size not a multiple of the granularity: {other:?}").into()),
    }
    match VirtualRange::reserve(ctx, gran / 2) {
        Err(Error::InvalidArgument { .. }) => {}
        other => return Err(format!("reserve of half a granule: {other:?}").into()),
    }

    let s = ctx.new_stream()?;
    let size = gran;
    let n = (size / 4) as u32;
    let out = ctx.alloc_zeroed::<u32>(n as usize)?;
    let copy = fx.kernel("copy_u32")?;
    let write = fx.kernel("write_u32")?;
    ctx.synchronize()?;
    let (free0, _) = ctx.mem_get_info()?;

    let phys = PhysicalAllocation::new(ctx, size)?;
    ensure!(phys.size() == size, "physical size");
    let mut a: Mapping = VirtualRange::reserve(ctx, size)?.map(&phys, 0)?;
    let b: Mapping = VirtualRange::reserve(ctx, size)?.map(&phys, 0)?;
    ensure!(
        a.physical_id() == b.physical_id() && a.physical_id() == phys.id(),
        "physical ids"
    );
    ensure!(a.aliases(&b), "aliases");
    ensure!(a.device_ptr() != b.device_ptr(), "two mappings at one address");
    ensure!(
        a.size() == size && a.num_bytes() == size && a.offset() == 0,
        "mapping size"
    );

    let check_out = |what: &str, f: &dyn Fn(u32) -> u32| -> Result<(), Box<dyn StdError>> {
        let got = s.clone_dtoh(&out)?;
        let bad = got.iter().enumerate().filter(|&(i, &v)| v != f(i as u32)).count();
        ensure!(bad == 0, "{what}: {bad} of {n} words differ");
        Ok(())
    };

    // memset through A, read through B.
    s.memset_d32(&mut a, 0x1111_1111)?;
    launch1(&s, &copy, n, &[&out, &b, &n])?;
    check_out("memset via A, kernel read via B", &|_| 0x1111_1111)?;
    // A kernel writes through A; a later launch reads through B.
    launch1(&s, &write, n, &[&a, &n, &1000u32])?;
    launch1(&s, &copy, n, &[&out, &b, &n])?;
    check_out("write via A, later launch reads via B", &|i| 1000 + i)?;

    // set_access: read-write always; read-only where the driver allows it for the owner.
    b.set_access(AccessFlags::ReadWrite)?;
    let ro = match b.set_access(AccessFlags::Read) {
        Ok(()) => {
            launch1(&s, &copy, n, &[&out, &b, &n])?;
            check_out("read via read-only B", &|i| 1000 + i)?;
            b.set_access(AccessFlags::ReadWrite)?;
            "read-only access ok".to_string()
        }
        Err(e) => format!("read-only access refused ({e})"),
    };

    // Unmap gives the range back; map it again.
    let rb = b.unmap()?;
    ensure!(rb.size() == size, "range size after unmap");
    let b = rb.map(&phys, 0)?;
    launch1(&s, &copy, n, &[&out, &b, &n])?;
    check_out("B after unmap + map", &|i| 1000 + i)?;

    // A two-granule allocation mapped whole; offsets other than 0 are refused before the
    // driver (which answers CUDA_ERROR_NOT_SUPPORTED to them).
    let phys2 = PhysicalAllocation::new(ctx, 2 * size)?;
    let hi = VirtualRange::reserve(ctx, 2 * size)?.map(&phys2, 0)?;
    ensure!(hi.offset() == 0 && hi.size() == 2 * size, "two-granule mapping");
    match VirtualRange::reserve(ctx, size)?.map(&phys2, size) {
        Err(Error::Unsupported { .. }) => {}
        other => return Err(format!("mapping at a non-zero offset: {other:?}").into()),
    }
    match VirtualRange::reserve(ctx, size)?.map(&phys2, 2 * size) {
        Err(Error::InvalidArgument { .. }) => {}
        other => return Err(format!("mapping past the end: {other:?}").into()),
    }
    match VirtualRange::reserve(ctx, size)?.map(&phys2, 1) {
        Err(Error::InvalidArgument { .. }) => {}
        other => return Err(format!("unaligned offset: {other:?}").into()),
    }
    drop(hi);
    drop(phys2);

    // Drop order: the PhysicalAllocation handle goes first; the mappings keep the memory.
    drop(phys);
    launch1(&s, &write, n, &[&b, &n, &7u32])?;
    launch1(&s, &copy, n, &[&out, &a, &n])?;
    check_out("after dropping the PhysicalAllocation", &|i| 7 + i)?;
    ctx.synchronize()?;
    let (free_mapped, _) = ctx.mem_get_info()?;
    drop(a);
    drop(b); // last owner: unmap, cuMemRelease, cuMemAddressFree
    ctx.synchronize()?;
    let (free1, _) = ctx.mem_get_info()?;
    ensure!(
        free1 + 2 * gran >= free0,
        "memory not returned: free {free0} before, {free1} after dropping every mapping"
    );
    Ok(format!(
        "granularity {} KiB; {ro}; free memory {} MiB -> {} MiB mapped -> {} MiB after drop",
        gran >> 10,
        free0 >> 20,
        free_mapped >> 20,
        free1 >> 20
    ))
}

// Pageable against pinned bandwidth is what this test measures.
#[cfg_attr(cuda_lint, allow(cuda_lint::pageable_async_copy))]
fn timing_helpers(fx: &Fx) -> TResult {
    let ctx = &fx.ctx;
    let s = ctx.new_stream()?;
    let timer = EventTimer::new(ctx)?;
    timer.start(&s)?;
    let cycles = fx.cycles(3);
    let one = LaunchConfig {
        grid: (1, 1, 1),
        block: (1, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: spin(long long).
    unsafe { s.launch(&fx.kernel("spin")?, one, &[&cycles])? };
    timer.stop(&s)?;
    let spin_ms = timer.elapsed_ms()?;
    ensure!(spin_ms > 1.0, "3 ms spin measured {spin_ms} ms");
    ensure!(
        timer.start_event().is_timing() && timer.stop_event().is_timing(),
        "timing events"
    );

    let bytes = 64usize << 20;
    let mut host = ctx.alloc_pinned::<u8>(bytes)?;
    host.fill(1);
    let mut dev = ctx.alloc::<u8>(bytes)?;
    let pageable = vec![1u8; bytes];
    // Warm up both paths.
    s.copy_htod(&mut dev, &host)?;
    s.copy_htod(&mut dev, &pageable)?;
    let mut best = [0f64; 2];
    for _ in 0..3 {
        // SAFETY: time_ms synchronizes before returning; `host` is not written meanwhile.
        let ms = time_ms(&s, || unsafe { s.copy_htod_async(&mut dev, &host) })?;
        best[0] = best[0].max(bytes as f64 / (f64::from(ms) * 1e-3) / 1e9);
        // SAFETY: as above (a pageable source: the call blocks).
        let ms = time_ms(&s, || unsafe { s.copy_htod_async(&mut dev, &pageable) })?;
        best[1] = best[1].max(bytes as f64 / (f64::from(ms) * 1e-3) / 1e9);
    }
    ensure!(best[0] > 0.0 && best[1] > 0.0, "bandwidths");
    let failing = time_ms(&s, || Err(Error::Unsupported { what: "test".into() }));
    ensure!(
        matches!(failing, Err(Error::Unsupported { .. })),
        "time_ms must return f's error"
    );
    Ok(format!(
        "spin 3 ms: {spin_ms:.2} ms; H2D 64 MiB best of 3: pinned {:.1} GB/s, pageable {:.1} GB/s",
        best[0], best[1]
    ))
}

fn launch_overhead(fx: &Fx) -> TResult {
    let s = fx.ctx.new_stream()?;
    let k = fx.kernel("empty")?;
    let one = LaunchConfig {
        grid: (1, 1, 1),
        block: (1, 1, 1),
        shared_mem_bytes: 0,
    };
    for _ in 0..1000 {
        // SAFETY: empty() takes no arguments.
        unsafe { s.launch(&k, one, &[])? };
    }
    s.synchronize()?;
    let n = 20_000;
    let t0 = Instant::now();
    for _ in 0..n {
        // SAFETY: as above.
        unsafe { s.launch(&k, one, &[])? };
    }
    let t1 = Instant::now();
    s.synchronize()?;
    let t2 = Instant::now();
    Ok(format!(
        "empty kernel: {:.2} us per launch call (host), {:.2} us end-to-end ({n} launches)",
        (t1 - t0).as_secs_f64() / f64::from(n) * 1e6,
        (t2 - t0).as_secs_f64() / f64::from(n) * 1e6
    ))
}

// ---------------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------------

type TestFn = fn(&Fx) -> TResult;

const TESTS: &[(&str, TestFn)] = &[
    ("device_info", device_info),
    ("context_per_thread", context_per_thread),
    ("device_alloc", device_alloc),
    ("pinned_alloc", pinned_alloc),
    ("mapped_pinned_kernel", mapped_pinned_kernel),
    ("register_host", register_host),
    ("managed_kernel", managed_kernel),
    ("out_of_memory", out_of_memory),
    ("streams_and_events", streams_and_events),
    ("copies_and_memsets", copies_and_memsets),
    ("length_mismatch", length_mismatch),
    ("nvrtc_compile", nvrtc_compile),
    ("module_and_function", module_and_function),
    ("launch_configs_and_args", launch_configs_and_args),
    ("vmm_aliases", vmm_aliases),
    ("timing_helpers", timing_helpers),
    ("launch_overhead", launch_overhead),
];

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".into())
}

fn main() {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let ctx = match Context::new(0) {
        Ok(ctx) => ctx,
        Err(e) if e.is_unavailable() => {
            println!("SKIP runtime GPU tests: {e}");
            return;
        }
        Err(e) => {
            println!("FAILED: Context::new(0): {e}");
            std::process::exit(1);
        }
    };
    let props = match ctx.properties() {
        Ok(p) => p,
        Err(e) => {
            println!("FAILED: device properties: {e}");
            std::process::exit(1);
        }
    };
    let dv = driver_version().unwrap_or(0);
    println!("device 0: {}", props.name);
    println!(
        "compute capability {}.{}; driver supports CUDA {}.{} ({dv})",
        props.compute_capability.0,
        props.compute_capability.1,
        dv / 1000,
        (dv % 1000) / 10
    );
    match nvrtc_version() {
        Ok((a, b)) => println!("NVRTC {a}.{b}"),
        Err(e) => println!("NVRTC: {e}"),
    }
    let fx = Fx {
        ctx,
        props,
        module: OnceLock::new(),
    };
    let (mut passed, mut failed, mut filtered) = (0, 0, 0);
    let started = Instant::now();
    for (name, test) in TESTS {
        if let Some(f) = &filter
            && !name.contains(f.as_str())
        {
            filtered += 1;
            continue;
        }
        let t0 = Instant::now();
        let r = catch_unwind(AssertUnwindSafe(|| test(&fx)));
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        match r {
            Ok(Ok(note)) => {
                passed += 1;
                if note.is_empty() {
                    println!("test {name} ... ok ({ms:.1} ms)");
                } else {
                    println!("test {name} ... ok ({ms:.1} ms): {note}");
                }
            }
            Ok(Err(e)) => {
                failed += 1;
                println!("test {name} ... FAILED: {e}");
            }
            Err(p) => {
                failed += 1;
                println!("test {name} ... FAILED: panicked: {}", panic_message(&*p));
            }
        }
    }
    println!(
        "test result: {}. {passed} passed; {failed} failed; {filtered} filtered out; finished in {:.2}s",
        if failed == 0 { "ok" } else { "FAILED" },
        started.elapsed().as_secs_f64()
    );
    if failed > 0 {
        std::process::exit(1);
    }
}
