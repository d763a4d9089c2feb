//! case: async inference client: an `async fn` enqueues the readback into pinned memory, records an event and awaits a hand-written future that polls cuEventQuery until the event completes, then reads the pinned buffer; driven by a minimal block_on
//! expect: none
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::ffi::{CString, c_void};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const SRC: &str = r#"
extern "C" __global__ void sigmoid(const float* x, float* y, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 1.f / (1.f + __expf(-x[i]));
}
"#;

/// Resolves once every piece of work recorded before `event` has completed.
struct EventDone {
    event: sys::CUevent,
}

impl Future for EventDone {
    type Output = Result<(), drv::DriverError>;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match unsafe { sys::cuEventQuery(self.event) } {
            sys::CUresult::CUDA_SUCCESS => Poll::Ready(Ok(())),
            sys::CUresult::CUDA_ERROR_NOT_READY => {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
            e => Poll::Ready(Err(drv::DriverError(e))),
        }
    }
}

pub fn block_on<F: Future>(fut: F) -> F::Output {
    let mut fut = std::pin::pin!(fut);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::yield_now();
    }
}

pub struct Client {
    stream: sys::CUstream,
    func: sys::CUfunction,
    done: sys::CUevent,
    d_x: sys::CUdeviceptr,
    d_y: sys::CUdeviceptr,
    h_y: *mut f32,
    n: usize,
}

impl Client {
    pub fn new(n: usize) -> Res<Self> {
        drv::init()?;
        let ctx = unsafe { drv::primary_ctx::retain(drv::device::get(0)?) }?;
        unsafe { drv::ctx::set_current(ctx) }?;
        let image = CString::new(cudarc::nvrtc::compile_ptx(SRC)?.to_src())?;
        let module = unsafe { drv::module::load_data(image.as_ptr().cast()) }?;
        let func = unsafe { drv::module::get_function(module, CString::new("sigmoid")?) }?;
        let stream = drv::stream::create(drv::stream::StreamKind::NonBlocking)?;
        let done = drv::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)?;
        let d_x = unsafe { drv::malloc_sync(n * 4) }?;
        let d_y = unsafe { drv::malloc_sync(n * 4) }?;
        let h_y = unsafe { drv::malloc_host(n * 4, 0) }?.cast::<f32>();
        Ok(Client { stream, func, done, d_x, d_y, h_y, n })
    }

    /// `x` must already be on the device at `self.d_x` (written by the feature extractor).
    pub async fn infer(&mut self) -> Res<Vec<f32>> {
        let (mut x, mut y, mut n) = (self.d_x, self.d_y, self.n as u32);
        let mut params: [*mut c_void; 3] = [(&mut x as *mut u64).cast(), (&mut y as *mut u64).cast(), (&mut n as *mut u32).cast()];
        unsafe {
            drv::launch_kernel(self.func, (n.div_ceil(256), 1, 1), (256, 1, 1), 0, self.stream, &mut params)?;
            sys::cuMemcpyDtoHAsync_v2(self.h_y.cast(), self.d_y, self.n * 4, self.stream).result()?;
            drv::event::record(self.done, self.stream)?;
        }
        EventDone { event: self.done }.await?;
        let y = unsafe { std::slice::from_raw_parts(self.h_y, self.n) };
        Ok(y.to_vec())
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        unsafe {
            let _ = drv::stream::synchronize(self.stream);
            let _ = drv::event::destroy(self.done);
            let _ = drv::free_sync(self.d_x);
            let _ = drv::free_sync(self.d_y);
            let _ = drv::free_host(self.h_y.cast());
            let _ = drv::stream::destroy(self.stream);
        }
    }
}

pub fn run_once(n: usize) -> Res<Vec<f32>> {
    let mut client = Client::new(n)?;
    block_on(client.infer())
}
