//! case: render-farm GPU worker thread takes jobs from a channel, tonemaps into pinned memory and copies it back asynchronously; the preview branch summarizes the pinned result and moves on before the stream synchronize that the normal branch performs
//! expect: missing_sync=1
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::ffi::{CString, c_void};
use std::sync::mpsc::{Receiver, Sender};
use std::thread::{self, JoinHandle};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const TONEMAP_SRC: &str = r#"
extern "C" __global__ void aces(const float* hdr, unsigned char* ldr, unsigned int n, float exposure) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = hdr[i] * exposure;
    float y = (x * (2.51f * x + 0.03f)) / (x * (2.43f * x + 0.59f) + 0.14f);
    ldr[i] = (unsigned char)(255.f * fminf(fmaxf(y, 0.f), 1.f));
}
"#;

pub struct Job {
    pub id: u64,
    pub hdr: sys::CUdeviceptr,
    pub texels: usize,
    pub exposure: f32,
    pub preview: bool,
}

pub enum Outcome {
    Preview { id: u64, mean: f32 },
    Final { id: u64, image: Vec<u8> },
}

#[derive(Clone, Copy)]
struct Ctx(sys::CUcontext);
unsafe impl Send for Ctx {}

fn worker(ctx: Ctx, max_texels: usize, jobs: Receiver<Job>, out: Sender<Outcome>) -> Res<()> {
    unsafe { drv::ctx::set_current(ctx.0) }?;
    let image = CString::new(cudarc::nvrtc::compile_ptx(TONEMAP_SRC)?.to_src())?;
    let module = unsafe { drv::module::load_data(image.as_ptr().cast()) }?;
    let func = unsafe { drv::module::get_function(module, CString::new("aces")?) }?;
    let stream = drv::stream::create(drv::stream::StreamKind::NonBlocking)?;
    let d_ldr = unsafe { drv::malloc_sync(max_texels) }?;
    let h_ldr = unsafe { drv::malloc_host(max_texels, 0) }?.cast::<u8>();

    for job in jobs {
        let n = job.texels.min(max_texels);
        let (mut hdr, mut ldr, mut nn, mut e) = (job.hdr, d_ldr, n as u32, job.exposure);
        let mut params: [*mut c_void; 4] = [
            (&mut hdr as *mut u64).cast(),
            (&mut ldr as *mut u64).cast(),
            (&mut nn as *mut u32).cast(),
            (&mut e as *mut f32).cast(),
        ];
        unsafe {
            sys::cuLaunchKernel(func, nn.div_ceil(256), 1, 1, 256, 1, 1, 0, stream, params.as_mut_ptr(), std::ptr::null_mut()).result()?;
            sys::cuMemcpyDtoHAsync_v2(h_ldr.cast(), d_ldr, n, stream).result()?;
        }
        let pixels = unsafe { std::slice::from_raw_parts(h_ldr, n) };
        if job.preview {
            let mean = pixels.iter().map(|&p| p as f32).sum::<f32>() / n.max(1) as f32; // EXPECT: missing_sync
            if out.send(Outcome::Preview { id: job.id, mean }).is_err() {
                break;
            }
            continue;
        }
        unsafe { drv::stream::synchronize(stream) }?;
        if out.send(Outcome::Final { id: job.id, image: pixels.to_vec() }).is_err() {
            break;
        }
    }
    unsafe {
        drv::stream::synchronize(stream)?;
        drv::free_host(h_ldr.cast())?;
        drv::free_sync(d_ldr)?;
        drv::stream::destroy(stream)?;
    }
    Ok(())
}

pub fn spawn_worker(max_texels: usize, jobs: Receiver<Job>, out: Sender<Outcome>) -> Res<JoinHandle<Res<()>>> {
    drv::init()?;
    let ctx = Ctx(unsafe { drv::primary_ctx::retain(drv::device::get(0)?) }?);
    Ok(thread::spawn(move || worker(ctx, max_texels, jobs, out)))
}
