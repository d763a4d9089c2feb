//! case: data-parallel trainer carves one cuMemAlloc gradient arena into per-layer views with CUdeviceptr arithmetic, logs their addresses, and hands them to a collective library's extern "C" all-reduce; the host only formats the pointer values and reads results through a blocking copy after synchronizing
//! expect: none
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::fmt::Write as _;

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

// Provided by the cluster's collective library (an NCCL-style C API).
unsafe extern "C" {
    fn coll_allreduce_sum_f32(buf: u64, count: usize, stream: sys::CUstream) -> i32;
}

pub struct LayerView {
    pub name: &'static str,
    pub ptr: sys::CUdeviceptr,
    pub count: usize,
}

pub struct GradArena {
    base: sys::CUdeviceptr,
    bytes: usize,
    pub views: Vec<LayerView>,
}

impl GradArena {
    pub fn carve(layers: &[(&'static str, usize)]) -> Res<Self> {
        const ALIGN: usize = 256;
        let bytes: usize = layers.iter().map(|&(_, c)| (c * 4).next_multiple_of(ALIGN)).sum();
        let base = unsafe { drv::malloc_sync(bytes) }?;
        let mut off = 0usize;
        let views = layers
            .iter()
            .map(|&(name, count)| {
                let v = LayerView { name, ptr: base + off as u64, count };
                off += (count * 4).next_multiple_of(ALIGN);
                v
            })
            .collect();
        Ok(GradArena { base, bytes, views })
    }

    pub fn describe(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "grad arena {:#x} ({} bytes)", self.base, self.bytes);
        for v in &self.views {
            let _ = writeln!(s, "  {:<12} {:#014x} +{:<8} {} floats", v.name, v.ptr, v.ptr - self.base, v.count);
        }
        s
    }
}

impl Drop for GradArena {
    fn drop(&mut self) {
        unsafe {
            let _ = drv::free_sync(self.base);
        }
    }
}

pub fn reduce_step(arena: &GradArena, stream: sys::CUstream, world: f32) -> Res<Vec<f32>> {
    log_line(&arena.describe());
    for v in &arena.views {
        let rc = unsafe { coll_allreduce_sum_f32(v.ptr, v.count, stream) };
        if rc != 0 {
            return Err(format!("all-reduce of {} failed: {rc}", v.name).into());
        }
    }
    unsafe { sys::cuStreamSynchronize(stream) }.result()?;
    // Averaged first layer, for the loss-scale heuristic.
    let first = &arena.views[0];
    let mut head = vec![0f32; first.count];
    unsafe { drv::memcpy_dtoh_sync(&mut head, first.ptr) }?;
    head.iter_mut().for_each(|g| *g /= world);
    Ok(head)
}

fn log_line(s: &str) {
    eprint!("{s}");
}
