//! case: velocity-Verlet MD stepper on the raw driver API logging the kinetic energy every k steps through a pinned mirror; only the thermostat path synchronizes before reading it, so the plain NVE run reads the mirror while its device-to-host copy is in flight
//! expect: missing_sync=1

mod buffers;
mod integrator;

use std::error::Error;
use std::ptr::null_mut;

use cudarc::driver::sys;

pub use buffers::{DeviceArray, HostMirror};
pub use integrator::{StepKernel, Thermostat};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

pub struct MdSystem {
    stream: sys::CUstream,
    kernel: StepKernel,
    pos: DeviceArray,
    vel: DeviceArray,
    force: DeviceArray,
    ke_dev: DeviceArray,
    ke_host: HostMirror,
    pos_host: HostMirror,
    n: u32,
    dt: f32,
    box_len: f32,
    thermostat: Option<Thermostat>,
}

fn bind_primary_context(ordinal: i32) -> Result<sys::CUcontext> {
    let mut dev: sys::CUdevice = 0;
    let mut ctx: sys::CUcontext = null_mut();
    unsafe {
        sys::cuInit(0).result()?;
        sys::cuDeviceGet(&mut dev, ordinal).result()?;
        sys::cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
        sys::cuCtxSetCurrent(ctx).result()?;
    }
    Ok(ctx)
}

impl MdSystem {
    pub fn new(n: u32, density: f32, dt: f32, thermostat: Option<Thermostat>) -> Result<Self> {
        bind_primary_context(0)?;
        let mut stream: sys::CUstream = null_mut();
        unsafe {
            sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
        }
        let kernel = StepKernel::load()?;
        let len = 3 * n as usize;
        let pos = DeviceArray::zeroed(len, stream)?;
        let vel = DeviceArray::zeroed(len, stream)?;
        let force = DeviceArray::zeroed(len, stream)?;
        let ke_dev = DeviceArray::zeroed(1, stream)?;
        let ke_host = HostMirror::new(1)?;
        let mut pos_host = HostMirror::new(len)?;

        // Simple cubic lattice.
        let box_len = (n as f32 / density).cbrt();
        let side = (n as f32).cbrt().ceil() as u32;
        let a = box_len / side as f32;
        for (i, p) in pos_host.as_mut_slice().chunks_exact_mut(3).enumerate() {
            let i = i as u32;
            p[0] = a * (i % side) as f32;
            p[1] = a * ((i / side) % side) as f32;
            p[2] = a * (i / (side * side)) as f32;
        }
        unsafe {
            sys::cuMemcpyHtoDAsync_v2(pos.ptr, pos_host.ptr.cast(), pos.bytes(), stream).result()?;
            sys::cuStreamSynchronize(stream).result()?;
        }
        Ok(Self { stream, kernel, pos, vel, force, ke_dev, ke_host, pos_host, n, dt, box_len, thermostat })
    }

    /// Advances `steps` steps and returns the kinetic energy sampled every `log_every` steps.
    pub fn run(&mut self, steps: usize, log_every: usize) -> Result<Vec<f32>> {
        let mut energies = Vec::with_capacity(steps / log_every.max(1) + 1);
        for step in 0..steps {
            unsafe { sys::cuMemsetD32Async(self.ke_dev.ptr, 0, 1, self.stream).result()? };
            self.kernel.launch(
                self.stream, &self.pos, &self.vel, &self.force, &self.ke_dev, self.dt, self.n, self.box_len,
            )?;
            if step % log_every.max(1) != 0 {
                continue;
            }
            unsafe {
                sys::cuMemcpyDtoHAsync_v2(self.ke_host.ptr.cast(), self.ke_dev.ptr, 4, self.stream).result()?;
            }
            if let Some(thermo) = self.thermostat.as_ref() {
                // The rescale factor needs this step's value.
                unsafe { sys::cuStreamSynchronize(self.stream).result()? };
                let ke = self.ke_host.as_slice()[0];
                let lambda = thermo.rescale_factor(ke, self.n);
                self.kernel.rescale(self.stream, &self.vel, lambda, self.n)?;
            }
            energies.push(unsafe { *self.ke_host.ptr }); // EXPECT: missing_sync
        }
        unsafe { sys::cuStreamSynchronize(self.stream).result()? };
        Ok(energies)
    }

    /// Final positions, copied back into the pinned mirror.
    pub fn positions(&mut self) -> Result<Vec<[f32; 3]>> {
        unsafe {
            sys::cuMemcpyDtoHAsync_v2(self.pos_host.ptr.cast(), self.pos.ptr, self.pos.bytes(), self.stream).result()?;
            sys::cuStreamSynchronize(self.stream).result()?;
        }
        Ok(self.pos_host.as_slice().chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect())
    }
}

impl Drop for MdSystem {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}

pub fn nve_run() -> Result<f32> {
    let mut md = MdSystem::new(4096, 0.8, 0.002, None)?;
    let ke = md.run(2000, 50)?;
    let drift = ke.last().copied().unwrap_or(0.0) - ke.first().copied().unwrap_or(0.0);
    let _final_pos = md.positions()?;
    Ok(drift)
}
