//! Kernels: NVRTC compilation to PTX (`nvrtcCompileProgram`), modules (`cuModuleLoadData`),
//! functions (`cuModuleGetFunction`) and launches (`cuLaunchKernel`).

use std::ffi::{CString, c_char, c_int, c_void};
use std::fmt;
use std::sync::Arc;

use cudarc::driver::sys;
use cudarc::nvrtc::sys as nvrtc_sys;

use crate::context::Context;
use crate::driver::{check, ensure_nvrtc, nvrtc_error_name};
use crate::error::{Error, Result};
use crate::memory::{DeviceBuffer, DevicePtr, DeviceRepr, ManagedBuffer};
use crate::stream::Stream;

// ---------------------------------------------------------------------------------------------
// PTX and NVRTC
// ---------------------------------------------------------------------------------------------

/// PTX assembly text, from [`Context::compile_ptx`] (NVRTC) or from anywhere else
/// ([`Ptx::from_src`], e.g. `nvcc --ptx` output), ready for [`Context::load_module`].
#[derive(Clone, PartialEq, Eq)]
pub struct Ptx {
    src: String,
}

impl Ptx {
    /// Wraps PTX text (e.g. `include_str!("kernel.ptx")`). Nothing is checked until
    /// [`Context::load_module`].
    pub fn from_src(src: impl Into<String>) -> Ptx {
        Ptx { src: src.into() }
    }

    /// The PTX text.
    pub fn as_str(&self) -> &str {
        &self.src
    }

    /// The PTX text, owned.
    pub fn into_string(self) -> String {
        self.src
    }

    /// Compiles CUDA C++ `src` to PTX with NVRTC for compute capability `arch = (major, minor)`
    /// (`nvrtcCreateProgram`, `nvrtcCompileProgram`, `nvrtcGetPTX`).
    ///
    /// Unless `options` already names an architecture, it first passes
    /// `--gpu-architecture=sm_XY`; if NVRTC rejects that option (or yields no PTX) it retries
    /// with `--gpu-architecture=compute_XY`, and then with the newest `compute_` architecture
    /// this NVRTC supports that is not newer than the device (the driver JIT-compiles it
    /// forward). An error in the source itself is not retried.
    /// A compilation error is [`Error::Nvrtc`] with the program log (the compiler's
    /// diagnostics). Missing NVRTC is [`Error::NoNvrtc`].
    pub fn compile(src: &str, arch: (u32, u32), options: &[&str]) -> Result<Ptx> {
        ensure_nvrtc()?;
        let csrc =
            CString::new(src).map_err(|_| Error::invalid("nvrtcCreateProgram", "the source contains a NUL byte"))?;
        let mut user = Vec::with_capacity(options.len());
        for o in options {
            user.push(
                CString::new(*o)
                    .map_err(|_| Error::invalid("nvrtcCompileProgram", format!("option {o:?} contains a NUL byte")))?,
            );
        }
        let names_arch = options
            .iter()
            .any(|o| o.starts_with("--gpu-architecture") || o.starts_with("-arch") || o.starts_with("--gpu-name"));
        if names_arch {
            return nvrtc_compile(&csrc, &user).map_err(|(_, e)| e);
        }
        let mut last = None;
        for arch_opt in arch_options(arch.0, arch.1) {
            match compile_with_arch(&csrc, &user, &arch_opt) {
                Ok(ptx) => return Ok(ptx),
                // An error in the source is final; anything else (the architecture option
                // rejected, no PTX produced) is retried with the next architecture.
                Err((nvrtc_sys::nvrtcResult::NVRTC_ERROR_COMPILATION, e)) => return Err(e),
                Err((_, e)) => last = Some(e),
            }
        }
        let cc = arch.0 * 10 + arch.1;
        if let Some(fallback) = newest_supported_arch(cc).filter(|&f| f != cc) {
            let opt = format!("--gpu-architecture=compute_{fallback}");
            return compile_with_arch(&csrc, &user, &opt).map_err(|(_, e)| e);
        }
        Err(last.unwrap_or_else(|| Error::Unsupported {
            what: format!(
                "NVRTC knows no architecture for compute capability {}.{}",
                arch.0, arch.1
            ),
        }))
    }
}

impl fmt::Debug for Ptx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ptx")
            .field("bytes", &self.src.len())
            .finish_non_exhaustive()
    }
}

impl From<String> for Ptx {
    fn from(src: String) -> Ptx {
        Ptx { src }
    }
}

impl From<&str> for Ptx {
    fn from(src: &str) -> Ptx {
        Ptx { src: src.into() }
    }
}

/// The NVRTC architecture options tried for compute capability `major.minor`, in order:
/// `--gpu-architecture=sm_XY`, then `--gpu-architecture=compute_XY`.
pub(crate) fn arch_options(major: u32, minor: u32) -> [String; 2] {
    [
        format!("--gpu-architecture=sm_{major}{minor}"),
        format!("--gpu-architecture=compute_{major}{minor}"),
    ]
}

/// The newest architecture (as `XY`) this NVRTC supports that is `<= cc` (`nvrtcGetSupportedArchs`).
fn newest_supported_arch(cc: u32) -> Option<u32> {
    let mut n: c_int = 0;
    // SAFETY: out-pointer to a local; NVRTC is loaded (ensure_nvrtc) and exports it.
    let r = unsafe { nvrtc_sys::nvrtcGetNumSupportedArchs(&mut n) };
    if r != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS || n <= 0 {
        return None;
    }
    let mut archs = vec![0 as c_int; n as usize];
    // SAFETY: the buffer holds `n` ints, as NVRTC asked.
    let r = unsafe { nvrtc_sys::nvrtcGetSupportedArchs(archs.as_mut_ptr()) };
    if r != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
        return None;
    }
    archs
        .into_iter()
        .filter_map(|a| u32::try_from(a).ok())
        .filter(|&a| a <= cc)
        .max()
}

type NvrtcFailure = (nvrtc_sys::nvrtcResult, Error);

fn compile_with_arch(src: &CString, user: &[CString], arch_opt: &str) -> std::result::Result<Ptx, NvrtcFailure> {
    // Built from numbers, so it has no NUL; an empty option would be rejected by NVRTC.
    let arch = CString::new(arch_opt).unwrap_or_default();
    let mut opts: Vec<CString> = Vec::with_capacity(user.len() + 1);
    opts.push(arch);
    opts.extend(user.iter().cloned());
    nvrtc_compile(src, &opts)
}

/// Destroys the NVRTC program on every exit path.
struct Program(nvrtc_sys::nvrtcProgram);

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: created by nvrtcCreateProgram, destroyed once.
        unsafe {
            let _ = nvrtc_sys::nvrtcDestroyProgram(&mut self.0);
        }
    }
}

fn nvrtc_fail(call: &'static str, res: nvrtc_sys::nvrtcResult, log: Option<String>) -> NvrtcFailure {
    (
        res,
        Error::Nvrtc {
            call,
            name: nvrtc_error_name(res),
            log,
        },
    )
}

fn program_log(prog: &Program) -> Option<String> {
    let mut size = 0usize;
    // SAFETY: out-pointer to a local; live program.
    let r = unsafe { nvrtc_sys::nvrtcGetProgramLogSize(prog.0, &mut size) };
    if r != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS || size == 0 {
        return None;
    }
    let mut buf = vec![0u8; size];
    // SAFETY: the buffer holds `size` bytes, as NVRTC asked.
    let r = unsafe { nvrtc_sys::nvrtcGetProgramLog(prog.0, buf.as_mut_ptr().cast::<c_char>()) };
    if r != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
        return None;
    }
    Some(bytes_to_string(buf))
}

fn bytes_to_string(mut buf: Vec<u8>) -> String {
    while buf.last() == Some(&0) {
        buf.pop();
    }
    String::from_utf8(buf).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

fn nvrtc_compile(src: &CString, opts: &[CString]) -> std::result::Result<Ptx, NvrtcFailure> {
    let name = c"cuda_lint_runtime.cu";
    let mut raw: nvrtc_sys::nvrtcProgram = std::ptr::null_mut();
    // SAFETY: NUL-terminated source and name; no headers.
    let r = unsafe {
        nvrtc_sys::nvrtcCreateProgram(
            &mut raw,
            src.as_ptr(),
            name.as_ptr(),
            0,
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    if r != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
        return Err(nvrtc_fail("nvrtcCreateProgram", r, None));
    }
    let prog = Program(raw);
    let ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
    // SAFETY: `ptrs` holds opts.len() NUL-terminated strings that outlive the call.
    let r = unsafe { nvrtc_sys::nvrtcCompileProgram(prog.0, ptrs.len() as c_int, ptrs.as_ptr()) };
    if r != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
        return Err(nvrtc_fail("nvrtcCompileProgram", r, program_log(&prog)));
    }
    let mut size = 0usize;
    // SAFETY: out-pointer to a local.
    let r = unsafe { nvrtc_sys::nvrtcGetPTXSize(prog.0, &mut size) };
    if r != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
        return Err(nvrtc_fail("nvrtcGetPTXSize", r, None));
    }
    let mut buf = vec![0u8; size];
    // SAFETY: the buffer holds `size` bytes, as NVRTC asked.
    let r = unsafe { nvrtc_sys::nvrtcGetPTX(prog.0, buf.as_mut_ptr().cast::<c_char>()) };
    if r != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
        return Err(nvrtc_fail("nvrtcGetPTX", r, None));
    }
    let src = bytes_to_string(buf);
    if src.trim().is_empty() {
        return Err(nvrtc_fail(
            "nvrtcGetPTX",
            nvrtc_sys::nvrtcResult::NVRTC_ERROR_INVALID_PROGRAM,
            Some("NVRTC produced no PTX for this architecture option".into()),
        ));
    }
    Ok(Ptx { src })
}

/// `(major, minor)` of the NVRTC library this process loaded (`nvrtcVersion`).
pub fn nvrtc_version() -> Result<(i32, i32)> {
    crate::driver::nvrtc_version()
}

// ---------------------------------------------------------------------------------------------
// Modules and kernels
// ---------------------------------------------------------------------------------------------

/// A loaded module (`cuModuleLoadData`, unloaded with `cuModuleUnload` when the last clone and
/// the last [`Kernel`] from it drop). Cheap to clone.
///
/// `Send + Sync`: an opaque driver handle, never mutated.
#[derive(Clone)]
pub struct Module {
    inner: Arc<ModuleInner>,
}

struct ModuleInner {
    raw: sys::CUmodule,
    ctx: Context,
}

// SAFETY: opaque driver handle, usable from any thread, never mutated.
unsafe impl Send for ModuleInner {}
// SAFETY: as above.
unsafe impl Sync for ModuleInner {}

impl Drop for ModuleInner {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_ok() {
            // SAFETY: owned module. Errors are ignored.
            unsafe {
                let _ = sys::cuModuleUnload(self.raw);
            }
        }
    }
}

impl fmt::Debug for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Module").field("raw", &self.inner.raw).finish()
    }
}

impl Module {
    /// The kernel named `name` (`cuModuleGetFunction`); use `extern "C"` in the CUDA source so
    /// the name is not mangled. A missing name is `CUDA_ERROR_NOT_FOUND`.
    pub fn function(&self, name: &str) -> Result<Kernel> {
        let cname = CString::new(name)
            .map_err(|_| Error::invalid("cuModuleGetFunction", format!("{name:?} contains a NUL byte")))?;
        self.inner.ctx.bind_to_thread()?;
        let mut raw: sys::CUfunction = std::ptr::null_mut();
        // SAFETY: out-pointer to a local; live module; NUL-terminated name.
        check("cuModuleGetFunction", unsafe {
            sys::cuModuleGetFunction(&mut raw, self.inner.raw, cname.as_ptr())
        })?;
        Ok(Kernel {
            raw,
            name: Arc::from(name),
            module: self.clone(),
        })
    }

    /// The context the module is loaded in.
    pub fn context(&self) -> &Context {
        &self.inner.ctx
    }

    /// The raw `CUmodule`; valid while `self` lives.
    pub fn as_raw(&self) -> sys::CUmodule {
        self.inner.raw
    }
}

/// A kernel (`CUfunction`) of a [`Module`], which it keeps loaded. Cheap to clone. Launch it with
/// [`Stream::launch`].
///
/// `Send + Sync`: launching one function from several threads at once is allowed by the driver.
#[derive(Clone)]
pub struct Kernel {
    raw: sys::CUfunction,
    name: Arc<str>,
    module: Module,
}

// SAFETY: see the type docs; the handle is never mutated.
unsafe impl Send for Kernel {}
// SAFETY: as above.
unsafe impl Sync for Kernel {}

impl fmt::Debug for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Kernel")
            .field("name", &self.name)
            .field("raw", &self.raw)
            .finish()
    }
}

impl Kernel {
    /// The name it was looked up by.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The module it belongs to.
    pub fn module(&self) -> &Module {
        &self.module
    }

    /// The raw `CUfunction`; valid while `self` lives.
    pub fn as_raw(&self) -> sys::CUfunction {
        self.raw
    }
}

impl Context {
    /// Implementation of [`Context::compile_ptx`].
    pub(crate) fn compile_ptx_impl(&self, src: &str) -> Result<Ptx> {
        self.compile_ptx_with_options(src, &[])
    }

    /// Implementation of [`Context::compile_ptx_with_options`].
    pub(crate) fn compile_ptx_with_options_impl(&self, src: &str, options: &[&str]) -> Result<Ptx> {
        let cc = self.device().compute_capability()?;
        Ptx::compile(src, cc, options)
    }

    /// Implementation of [`Context::load_module`].
    pub(crate) fn load_module_impl(&self, ptx: &Ptx) -> Result<Module> {
        let image = CString::new(ptx.as_str())
            .map_err(|_| Error::invalid("cuModuleLoadData", "the PTX contains a NUL byte"))?;
        self.bind_to_thread()?;
        let mut raw: sys::CUmodule = std::ptr::null_mut();
        // SAFETY: out-pointer to a local; NUL-terminated image that outlives the call.
        check("cuModuleLoadData", unsafe {
            sys::cuModuleLoadData(&mut raw, image.as_ptr().cast::<c_void>())
        })?;
        Ok(Module {
            inner: Arc::new(ModuleInner { raw, ctx: self.clone() }),
        })
    }

    /// Implementation of [`Context::load_cuda`].
    pub(crate) fn load_cuda_impl(&self, src: &str) -> Result<Module> {
        let ptx = self.compile_ptx(src)?;
        self.load_module(&ptx)
    }
}

// ---------------------------------------------------------------------------------------------
// Launch
// ---------------------------------------------------------------------------------------------

/// Grid, block and dynamic shared memory of a launch (`cuLaunchKernel`'s `gridDim*`,
/// `blockDim*`, `sharedMemBytes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LaunchConfig {
    /// Blocks in x, y, z.
    pub grid: (u32, u32, u32),
    /// Threads per block in x, y, z.
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block, in bytes (`extern __shared__`).
    pub shared_mem_bytes: u32,
}

impl LaunchConfig {
    /// Threads per block used by [`LaunchConfig::for_num_elems`].
    pub const THREADS_PER_BLOCK: u32 = 256;

    /// One thread per element, 256 threads per block, `ceil(n / 256)` blocks (at least one, so
    /// `n == 0` still launches: kernels must check `i < n`), no shared memory.
    pub const fn for_num_elems(n: u32) -> LaunchConfig {
        let blocks = n.div_ceil(Self::THREADS_PER_BLOCK);
        LaunchConfig {
            grid: (if blocks == 0 { 1 } else { blocks }, 1, 1),
            block: (Self::THREADS_PER_BLOCK, 1, 1),
            shared_mem_bytes: 0,
        }
    }

    /// The same configuration with `bytes` of dynamic shared memory per block.
    pub const fn with_shared_mem_bytes(mut self, bytes: u32) -> LaunchConfig {
        self.shared_mem_bytes = bytes;
        self
    }

    /// Total threads launched (grid size times block size).
    pub const fn num_threads(&self) -> u64 {
        (self.grid.0 as u64 * self.grid.1 as u64 * self.grid.2 as u64)
            * (self.block.0 as u64 * self.block.1 as u64 * self.block.2 as u64)
    }
}

/// A value that can be passed to a kernel parameter by [`Stream::launch`].
///
/// Implemented for the scalars `i8`..`i64`, `u8`..`u64`, `isize`, `usize`, `f32`, `f64`, for
/// [`DevicePtr`] (a `T*` parameter), and for [`DeviceBuffer`], [`ManagedBuffer`] and
/// [`crate::Mapping`] (passed as their device pointer, a `T*` parameter).
///
/// # Safety
///
/// `param_ptr` must return a pointer to a value with exactly the size and representation of the
/// kernel parameter it is passed for, that stays valid and unchanged for as long as `self` is
/// borrowed (never a pointer to a temporary). The driver only reads through it.
pub unsafe trait KernelArg {
    /// Pointer to the parameter's value: an element of `cuLaunchKernel`'s `kernelParams`.
    fn param_ptr(&self) -> *mut c_void;
}

macro_rules! scalar_kernel_arg {
    ($($t:ty),* $(,)?) => { $(
        // SAFETY: points at the value itself, which lives as long as the borrow.
        unsafe impl KernelArg for $t {
            #[inline]
            fn param_ptr(&self) -> *mut c_void {
                (self as *const $t).cast_mut().cast()
            }
        }
    )* };
}
scalar_kernel_arg!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64);

// SAFETY: DevicePtr is a transparent u64, which is what a `T*` parameter is.
unsafe impl KernelArg for DevicePtr {
    #[inline]
    fn param_ptr(&self) -> *mut c_void {
        (self as *const DevicePtr).cast_mut().cast()
    }
}

// SAFETY: points at the buffer's stored CUdeviceptr field, alive as long as the borrow.
unsafe impl<T: DeviceRepr> KernelArg for DeviceBuffer<T> {
    #[inline]
    fn param_ptr(&self) -> *mut c_void {
        (&self.ptr as *const sys::CUdeviceptr).cast_mut().cast()
    }
}

// SAFETY: points at the buffer's stored CUdeviceptr field, alive as long as the borrow.
unsafe impl<T: DeviceRepr> KernelArg for ManagedBuffer<T> {
    #[inline]
    fn param_ptr(&self) -> *mut c_void {
        (&self.ptr as *const sys::CUdeviceptr).cast_mut().cast()
    }
}

// SAFETY: forwards to the referent, which outlives the reference.
unsafe impl<T: KernelArg + ?Sized> KernelArg for &T {
    #[inline]
    fn param_ptr(&self) -> *mut c_void {
        (**self).param_ptr()
    }
}

// SAFETY: forwards to the referent, which outlives the reference.
unsafe impl<T: KernelArg + ?Sized> KernelArg for &mut T {
    #[inline]
    fn param_ptr(&self) -> *mut c_void {
        (**self).param_ptr()
    }
}

/// A kernel argument that is a device pointer to elements of `T`: what a typed kernel launch
/// (`#[cuda_lint::kernels]` of the `cuda-lint-macros` crate) takes for a `T*` or `const T*`
/// parameter.
///
/// Implemented for [`DeviceBuffer<T>`] and [`ManagedBuffer<T>`] (for their own `T` only), and
/// for [`DevicePtr`] and [`crate::Mapping`], which are untyped device addresses, for every `T`.
/// So `&DeviceBuffer<i32>` is not accepted where a kernel takes `float*`.
///
/// # Safety
///
/// The [`KernelArg`] value must be a device address (a `T*` kernel parameter), and, for a typed
/// implementation, the memory it points at must hold elements of `T`.
pub unsafe trait DeviceArg<T>: KernelArg {}

// SAFETY: passed as its device pointer, to `len` elements of `T`.
unsafe impl<T: DeviceRepr> DeviceArg<T> for DeviceBuffer<T> {}

// SAFETY: passed as its device pointer, to `len` elements of `T`.
unsafe impl<T: DeviceRepr> DeviceArg<T> for ManagedBuffer<T> {}

// SAFETY: an untyped device address, passed as a `T*`.
unsafe impl<T> DeviceArg<T> for DevicePtr {}

// SAFETY: an untyped device address (the mapping's start), passed as a `T*`.
unsafe impl<T> DeviceArg<T> for crate::vmm::Mapping {}

/// The launch checks made before `cuLaunchKernel`: every dimension at least 1.
pub(crate) fn check_launch_config(cfg: &LaunchConfig) -> Result<()> {
    let (g, b) = (cfg.grid, cfg.block);
    if g.0 == 0 || g.1 == 0 || g.2 == 0 || b.0 == 0 || b.1 == 0 || b.2 == 0 {
        return Err(Error::invalid(
            "cuLaunchKernel",
            format!("every grid and block dimension must be at least 1, got grid {g:?} block {b:?}"),
        ));
    }
    Ok(())
}

/// Implementation of [`Stream::launch`] (which documents the safety contract).
///
/// # Safety
///
/// See [`Stream::launch`].
pub(crate) unsafe fn launch_kernel(
    stream: &Stream,
    kernel: &Kernel,
    cfg: LaunchConfig,
    args: &[&dyn KernelArg],
) -> Result<()> {
    if !kernel.module.inner.ctx.same_context(stream.context()) {
        return Err(Error::invalid(
            "cuLaunchKernel",
            "the kernel's module is loaded in a different context than the stream's",
        ));
    }
    check_launch_config(&cfg)?;
    const INLINE: usize = 24;
    let mut inline = [std::ptr::null_mut::<c_void>(); INLINE];
    let mut heap = Vec::new();
    let params: &mut [*mut c_void] = if args.len() <= INLINE {
        for (slot, a) in inline.iter_mut().zip(args) {
            *slot = a.param_ptr();
        }
        &mut inline[..args.len()]
    } else {
        heap.extend(args.iter().map(|a| a.param_ptr()));
        &mut heap[..]
    };
    let params_ptr = if params.is_empty() {
        std::ptr::null_mut()
    } else {
        params.as_mut_ptr()
    };
    stream.context().bind_to_thread()?;
    // SAFETY: `params` holds one pointer per argument, each valid for the borrow of `args`,
    // which outlives this call (the driver copies the values during the call). The rest is
    // the caller's contract.
    check("cuLaunchKernel", unsafe {
        sys::cuLaunchKernel(
            kernel.raw,
            cfg.grid.0,
            cfg.grid.1,
            cfg.grid.2,
            cfg.block.0,
            cfg.block.1,
            cfg.block.2,
            cfg.shared_mem_bytes,
            stream.as_raw(),
            params_ptr,
            std::ptr::null_mut(),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_config_math() {
        let c = LaunchConfig::for_num_elems(1000);
        assert_eq!(c.grid, (4, 1, 1));
        assert_eq!(c.block, (256, 1, 1));
        assert_eq!(c.shared_mem_bytes, 0);
        assert_eq!(LaunchConfig::for_num_elems(256).grid.0, 1);
        assert_eq!(LaunchConfig::for_num_elems(257).grid.0, 2);
        assert_eq!(LaunchConfig::for_num_elems(1).grid.0, 1);
        assert_eq!(LaunchConfig::for_num_elems(0).grid.0, 1);
        assert_eq!(LaunchConfig::for_num_elems(u32::MAX).grid.0, 16_777_216);
        assert_eq!(c.num_threads(), 1024);
        assert_eq!(c.with_shared_mem_bytes(4096).shared_mem_bytes, 4096);
        assert!(check_launch_config(&c).is_ok());
        let bad = LaunchConfig { grid: (1, 0, 1), ..c };
        assert!(matches!(
            check_launch_config(&bad),
            Err(Error::InvalidArgument {
                call: "cuLaunchKernel",
                ..
            })
        ));
    }

    #[test]
    fn nvrtc_arch_options() {
        assert_eq!(
            arch_options(9, 0),
            [
                "--gpu-architecture=sm_90".to_string(),
                "--gpu-architecture=compute_90".to_string()
            ]
        );
        assert_eq!(arch_options(8, 6)[0], "--gpu-architecture=sm_86");
        assert_eq!(arch_options(12, 0)[1], "--gpu-architecture=compute_120");
    }

    #[test]
    fn ptx_from_src_and_nul_trimming() {
        let p = Ptx::from_src(".version 8.0\n");
        assert_eq!(p.as_str(), ".version 8.0\n");
        assert_eq!(Ptx::from(String::from("x")).into_string(), "x");
        assert_eq!(bytes_to_string(b"abc\0\0".to_vec()), "abc");
    }

    /// Passes on any machine: without NVRTC the error says so (no panic); with it, PTX.
    #[test]
    fn compile_without_nvrtc_is_an_error_not_a_panic() {
        let src = "extern \"C\" __global__ void k(float* x) { x[0] = 1.0f; }";
        let r = std::panic::catch_unwind(|| Ptx::compile(src, (8, 0), &[]));
        match r.expect("Ptx::compile panicked") {
            Ok(ptx) => assert!(ptx.as_str().contains(".entry k")),
            Err(Error::NoNvrtc { reason }) => assert!(reason.contains("nvrtc"), "{reason}"),
            Err(e) => panic!("unexpected error {e}"),
        }
        let v = std::panic::catch_unwind(nvrtc_version).expect("nvrtc_version panicked");
        assert!(v.is_ok() || matches!(v, Err(Error::NoNvrtc { .. })));
    }

    #[test]
    fn scalar_param_ptrs_point_at_the_value() {
        let n = 7u32;
        let x = 2.5f64;
        let p = DevicePtr::from_raw(0xdead_beef);
        // SAFETY: the pointers point at the locals above.
        unsafe {
            assert_eq!(*n.param_ptr().cast::<u32>(), 7);
            assert_eq!(*x.param_ptr().cast::<f64>(), 2.5);
            assert_eq!(*p.param_ptr().cast::<u64>(), 0xdead_beef);
            let r = &n;
            assert_eq!(r.param_ptr(), n.param_ptr());
        }
        // The array literal coerces to &[&dyn KernelArg].
        fn takes(args: &[&dyn KernelArg]) -> usize {
            args.len()
        }
        let a = 1i32;
        assert_eq!(takes(&[&n, &x, &p, &a]), 4);
    }

    #[test]
    fn device_args_are_typed_by_element() {
        fn takes_f32(_: &impl DeviceArg<f32>) {}
        fn takes_i32(_: &impl DeviceArg<i32>) {}
        // Untyped device addresses are accepted for any element type. (That a
        // `&DeviceBuffer<i32>` is not a `DeviceArg<f32>` is a compile-fail case of the macros.)
        let p = DevicePtr::from_raw(0x1000);
        takes_f32(&p);
        takes_i32(&p);
        fn typed<T: DeviceRepr>() -> bool
        where
            DeviceBuffer<T>: DeviceArg<T>,
            ManagedBuffer<T>: DeviceArg<T>,
            crate::vmm::Mapping: DeviceArg<T>,
        {
            true
        }
        assert!(typed::<f32>() && typed::<u64>());
    }
}
