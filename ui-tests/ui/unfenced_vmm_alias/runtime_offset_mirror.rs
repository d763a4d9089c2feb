// A mirrored ring mapped at `base` and at `base + size`, where `size` is known only at run
// time: the view at the computed offset maps the allocation also mapped at `base`, so the two
// addresses are two mappings of it. Chunks mapped at computed offsets, each its own
// allocation (a growable buffer), are not.
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle};
use cudarc::driver::{CudaContext, CudaFunction, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void wrap(unsigned* ring, const unsigned* mirror, unsigned* out) {
    ring[threadIdx.x] = 1u;
    out[threadIdx.x] = mirror[threadIdx.x];
}
"#;

struct Mirrored {
    stream: Arc<CudaStream>,
    func: CudaFunction,
    base: CUdeviceptr,
    size: usize,
    handle: CUmemGenericAllocationHandle,
}

impl Mirrored {
    fn new(
        ctx: &Arc<CudaContext>,
        size: usize,
        prop: &sys::CUmemAllocationProp,
        access: &sys::CUmemAccessDesc,
    ) -> Result<Mirrored, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let func = ctx.load_module(compile_ptx(SRC)?)?.load_function("wrap")?;
        let (mut base, mut handle) = (0, 0);
        unsafe {
            sys::cuMemCreate(&mut handle, size, prop, 0).result()?;
            sys::cuMemAddressReserve(&mut base, 2 * size, 0, 0, 0).result()?;
            sys::cuMemMap(base, size, 0, handle, 0).result()?;
            sys::cuMemMap(base + size as u64, size, 0, handle, 0).result()?;
            sys::cuMemSetAccess(base, 2 * size, access, 1).result()?;
        }
        Ok(Mirrored { stream, func, base, size, handle })
    }

    fn fires_both_views_to_one_kernel(&self, out: &mut cudarc::driver::CudaSlice<u32>) -> Result<(), DriverError> {
        let ring = self.base;
        let mirror = self.base + self.size as u64;
        let mut launch = self.stream.launch_builder(&self.func);
        launch.arg(&ring).arg(&mirror).arg(out);
        unsafe { launch.launch(LaunchConfig::for_num_elems(32)) }?; //~ unfenced_vmm_alias
        Ok(())
    }

    fn ok_one_view_twice(&self, out: &mut cudarc::driver::CudaSlice<u32>) -> Result<(), DriverError> {
        let mirror = self.base + self.size as u64;
        let mut launch = self.stream.launch_builder(&self.func);
        launch.arg(&mirror).arg(&mirror).arg(out);
        unsafe { launch.launch(LaunchConfig::for_num_elems(32)) }?;
        Ok(())
    }
}

// A growable buffer: chunk `i` is its own allocation, mapped at `base + i * chunk`.
struct Growable {
    stream: Arc<CudaStream>,
    func: CudaFunction,
    base: CUdeviceptr,
    chunk: usize,
    handles: Vec<CUmemGenericAllocationHandle>,
}

impl Growable {
    fn new(
        ctx: &Arc<CudaContext>,
        chunk: usize,
        chunks: usize,
        prop: &sys::CUmemAllocationProp,
        access: &sys::CUmemAccessDesc,
    ) -> Result<Growable, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let func = ctx.load_module(compile_ptx(SRC)?)?.load_function("wrap")?;
        let mut base = 0;
        let mut handles = Vec::new();
        unsafe {
            sys::cuMemAddressReserve(&mut base, chunks * chunk, 0, 0, 0).result()?;
            for i in 0..chunks {
                let mut handle = 0;
                sys::cuMemCreate(&mut handle, chunk, prop, 0).result()?;
                sys::cuMemMap(base + (i * chunk) as u64, chunk, 0, handle, 0).result()?;
                handles.push(handle);
            }
            sys::cuMemSetAccess(base, chunks * chunk, access, 1).result()?;
        }
        Ok(Growable { stream, func, base, chunk, handles })
    }

    fn ok_two_chunks_to_one_kernel(&self, out: &mut cudarc::driver::CudaSlice<u32>) -> Result<(), DriverError> {
        let first = self.base;
        let second = self.base + self.chunk as u64;
        let mut launch = self.stream.launch_builder(&self.func);
        launch.arg(&first).arg(&second).arg(out);
        unsafe { launch.launch(LaunchConfig::for_num_elems(32)) }?;
        Ok(())
    }
}

impl Drop for Growable {
    // Every chunk unmapped in the loop, the one at `base` included: the range is free to go.
    fn drop(&mut self) {
        unsafe {
            let _ = self.stream.synchronize();
            for (i, h) in self.handles.drain(..).enumerate() {
                let _ = sys::cuMemUnmap(self.base + (i * self.chunk) as u64, self.chunk);
                let _ = sys::cuMemRelease(h);
            }
            let _ = sys::cuMemAddressFree(self.base, 0);
        }
    }
}

fn main() {}
