//! case: managed memory (cuMemAllocManaged) filled on the host before any launch and updated by a particle-step kernel that also reads a temporary force buffer; cuCtxSynchronize comes before the temporary's cuMemFree_v2 and before the host reads the managed particles
//! expect: none

use std::error::Error;
use std::ffi::{CString, c_void};

use cudarc::driver::result;
use cudarc::driver::sys::{self, CUdeviceptr, CUmemAttach_flags};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
struct Particle { float x, y, vx, vy; };

extern "C" __global__ void step(Particle* p, const float2* force, float dt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        p[i].vx += force[i].x * dt;
        p[i].vy += force[i].y * dt;
        p[i].x += p[i].vx * dt;
        p[i].y += p[i].vy * dt;
    }
}
"#;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Particle {
    pub x: f32,
    pub y: f32,
    pub vx: f32,
    pub vy: f32,
}

/// Advances `particles` by one step under `forces` (fx, fy pairs).
pub fn advance(particles: &mut [Particle], forces: &[[f32; 2]], dt: f32) -> Result<(), Box<dyn Error>> {
    assert_eq!(particles.len(), forces.len());
    let n = particles.len();
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    let module = unsafe { result::module::load_data(image.as_ptr().cast())? };
    let f = unsafe { result::module::get_function(module, CString::new("step")?)? };
    let stream = result::stream::create(result::stream::StreamKind::Default)?;

    unsafe {
        let mut m_p: CUdeviceptr = 0;
        let mut d_force: CUdeviceptr = 0;
        let a1 = sys::cuMemAllocManaged(&mut m_p, std::mem::size_of_val(particles), CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32);
        let a2 = sys::cuMemAlloc_v2(&mut d_force, std::mem::size_of_val(forces));
        if let Err(e) = a1.result().and(a2.result()) {
            let _ = sys::cuMemFree_v2(m_p);
            let _ = sys::cuMemFree_v2(d_force);
            return Err(e.into());
        }
        let managed = std::slice::from_raw_parts_mut(m_p as *mut Particle, n);
        managed.copy_from_slice(particles);

        let mut status = result::memcpy_htod_sync(d_force, forces);
        if status.is_ok() {
            let (mut p, mut fo, mut t, mut n_i) = (m_p, d_force, dt, n as i32);
            let mut args: [*mut c_void; 4] = [(&raw mut p).cast(), (&raw mut fo).cast(), (&raw mut t).cast(), (&raw mut n_i).cast()];
            status = result::launch_kernel(f, (n.div_ceil(128) as u32, 1, 1), (128, 1, 1), 0, stream, &mut args);
        }
        let synced = sys::cuCtxSynchronize().result();
        let _ = sys::cuMemFree_v2(d_force);
        if status.is_ok() && synced.is_ok() {
            particles.copy_from_slice(managed);
        }
        let _ = sys::cuMemFree_v2(m_p);
        let _ = result::stream::destroy(stream);
        let _ = result::module::unload(module);
        status?;
        synced?;
    }
    Ok(())
}
