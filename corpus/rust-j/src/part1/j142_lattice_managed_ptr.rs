//! case: crystal-lattice relaxation allocates atom positions with cuMemAllocManaged and, after cuCtxSynchronize, reads them on the host through the raw CUdeviceptr turned into a slice; managed memory is host-addressable and no kernel is running, and it is released with cuMemFree
//! expect: none

use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys;

#[derive(Debug, Clone, Copy)]
pub struct Cell {
    pub a: f32,
    pub reps: usize,
}

pub struct Lattice {
    positions: sys::CUdeviceptr,
    atoms: usize,
    relax: sys::CUfunction,
}

fn ok(r: sys::CUresult) -> Result<(), sys::CUresult> {
    if r == sys::CUresult::CUDA_SUCCESS { Ok(()) } else { Err(r) }
}

impl Lattice {
    /// FCC lattice, 4 atoms per unit cell.
    pub fn fcc(cell: Cell, relax: sys::CUfunction) -> Result<Self, sys::CUresult> {
        let atoms = 4 * cell.reps.pow(3);
        let mut positions = 0;
        unsafe { ok(sys::cuMemAllocManaged(&mut positions, atoms * 12, sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32))? };
        let xyz = unsafe { std::slice::from_raw_parts_mut(positions as *mut [f32; 3], atoms) };
        let basis = [[0.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.5, 0.0, 0.5], [0.0, 0.5, 0.5]];
        let mut k = 0;
        for i in 0..cell.reps {
            for j in 0..cell.reps {
                for l in 0..cell.reps {
                    for b in basis {
                        xyz[k] = [(i as f32 + b[0]) * cell.a, (j as f32 + b[1]) * cell.a, (l as f32 + b[2]) * cell.a];
                        k += 1;
                    }
                }
            }
        }
        Ok(Self { positions, atoms, relax })
    }

    pub fn relax(&mut self, steps: u32, step_size: f32) -> Result<f32, sys::CUresult> {
        let before: Vec<[f32; 3]> = self.positions().to_vec();
        for _ in 0..steps {
            let (mut p, mut n, mut h) = (self.positions, self.atoms as i32, step_size);
            let mut params = [
                (&mut p as *mut sys::CUdeviceptr).cast::<c_void>(),
                (&mut n as *mut i32).cast(),
                (&mut h as *mut f32).cast(),
            ];
            unsafe {
                ok(sys::cuLaunchKernel(self.relax, (self.atoms as u32).div_ceil(128), 1, 1, 128, 1, 1, 0, null_mut(), params.as_mut_ptr(), null_mut()))?;
            }
        }
        unsafe { ok(sys::cuCtxSynchronize())? };
        let after = self.positions();
        let max_disp = before
            .iter()
            .zip(after)
            .map(|(a, b)| ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt())
            .fold(0.0f32, f32::max);
        Ok(max_disp)
    }

    fn positions(&self) -> &[[f32; 3]] {
        unsafe { std::slice::from_raw_parts(self.positions as *const [f32; 3], self.atoms) }
    }
}

impl Drop for Lattice {
    fn drop(&mut self) {
        unsafe {
            sys::cuCtxSynchronize();
            sys::cuMemFree_v2(self.positions);
        }
    }
}
