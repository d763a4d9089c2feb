use super::Res;
use super::arena::KvArena;
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::ffi::{CString, c_void};

const RESCALE_SRC: &str = r#"
extern "C" __global__ void rescale_page(float* kv, float scale, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) kv[i] = kv[i] * scale;
}
"#;

pub struct Compactor {
    stream: sys::CUstream,
    rescale: sys::CUfunction,
}

impl Compactor {
    pub fn new() -> Res<Self> {
        let ptx = cudarc::nvrtc::compile_ptx(RESCALE_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let module = unsafe { drv::module::load_data(image.as_ptr().cast()) }?;
        let rescale = unsafe { drv::module::get_function(module, CString::new("rescale_page")?) }?;
        let stream = drv::stream::create(drv::stream::StreamKind::NonBlocking)?;
        Ok(Compactor { stream, rescale })
    }

    /// Moves the physical page behind slot `from` to slot `to`, then requantizes it.
    pub fn move_page(&self, kv: &mut KvArena, from: usize, to: usize, scale: f32) -> Res<()> {
        if kv.is_mapped(to) {
            return Err(format!("slot {to} is still in use").into());
        }
        let handle = kv.handles[from].take().ok_or("moving an empty slot")?;
        // Nothing may still read the old address when it goes away.
        unsafe { drv::stream::synchronize(self.stream) }?;
        let dst = kv.page_va(to);
        unsafe {
            sys::cuMemUnmap(kv.page_va(from), kv.page_bytes).result()?;
            sys::cuMemMap(dst, kv.page_bytes, 0, handle, 0).result()?;
        }
        kv.handles[to] = Some(handle);

        let mut page = dst;
        let mut s = scale;
        let mut n2 = (kv.page_bytes / 4) as u32;
        let mut params: [*mut c_void; 3] = [
            (&mut page as *mut u64).cast(),
            (&mut s as *mut f32).cast(),
            (&mut n2 as *mut u32).cast(),
        ];
        unsafe { sys::cuLaunchKernel(self.rescale, n2.div_ceil(256), 1, 1, 256, 1, 1, 0, self.stream, params.as_mut_ptr(), std::ptr::null_mut()) }.result()?; // EXPECT: vmm_lifecycle
        Ok(())
    }

    pub fn finish(&self) -> Res<()> {
        unsafe { drv::stream::synchronize(self.stream) }?;
        Ok(())
    }
}
