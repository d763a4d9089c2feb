//! Loading of `libcuda` and `libnvrtc`, `cuInit`, and turning `CUresult`/`nvrtcResult` into
//! [`Error`]. Private.
//!
//! cudarc's `dynamic-loading` bindings resolve the library on the first call of any function and
//! panic when it is missing (`culib()`), and panic again when one symbol is missing (`load()`).
//! This module makes sure neither can happen: [`ensure_driver`] checks
//! `is_culib_present()` first and then that every entry point this crate calls is exported, and
//! only then calls `cuInit(0)`. Every public entry point of the crate reaches the driver through
//! [`ensure_driver`] (directly, or by holding a [`crate::Context`], which cannot exist otherwise).

use std::ffi::{CStr, c_char};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use cudarc::driver::sys;
use cudarc::nvrtc::sys as nvrtc_sys;

use crate::error::{Error, Result};

/// Every driver entry point this crate calls, by the exact symbol name cudarc loads.
const DRIVER_SYMBOLS: &[&str] = &[
    "cuInit",
    "cuDriverGetVersion",
    "cuGetErrorName",
    "cuGetErrorString",
    "cuDeviceGetCount",
    "cuDeviceGet",
    "cuDeviceGetName",
    "cuDeviceTotalMem_v2",
    "cuDeviceGetAttribute",
    "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxRelease_v2",
    "cuCtxGetCurrent",
    "cuCtxSetCurrent",
    "cuCtxSynchronize",
    "cuMemGetInfo_v2",
    "cuMemAlloc_v2",
    "cuMemFree_v2",
    "cuMemHostAlloc",
    "cuMemFreeHost",
    "cuMemHostGetDevicePointer_v2",
    "cuMemHostRegister_v2",
    "cuMemHostUnregister",
    "cuMemAllocManaged",
    "cuStreamCreate",
    "cuStreamDestroy_v2",
    "cuStreamSynchronize",
    "cuStreamQuery",
    "cuStreamWaitEvent",
    "cuEventCreate",
    "cuEventDestroy_v2",
    "cuEventRecord",
    "cuEventSynchronize",
    "cuEventQuery",
    "cuEventElapsedTime_v2",
    "cuMemcpyHtoDAsync_v2",
    "cuMemcpyDtoHAsync_v2",
    "cuMemcpyDtoDAsync_v2",
    "cuMemsetD8Async",
    "cuMemsetD32Async",
    "cuModuleLoadData",
    "cuModuleUnload",
    "cuModuleGetFunction",
    "cuLaunchKernel",
    "cuMemGetAllocationGranularity",
    "cuMemCreate",
    "cuMemRelease",
    "cuMemAddressReserve",
    "cuMemAddressFree",
    "cuMemMap",
    "cuMemUnmap",
    "cuMemSetAccess",
];

/// Every NVRTC entry point this crate calls.
const NVRTC_SYMBOLS: &[&str] = &[
    "nvrtcVersion",
    "nvrtcGetErrorString",
    "nvrtcCreateProgram",
    "nvrtcCompileProgram",
    "nvrtcGetProgramLogSize",
    "nvrtcGetProgramLog",
    "nvrtcGetPTXSize",
    "nvrtcGetPTX",
    "nvrtcDestroyProgram",
    "nvrtcGetNumSupportedArchs",
    "nvrtcGetSupportedArchs",
];

/// Library file names cudarc tries for `lib` (`"cuda"`, `"nvrtc"`), without duplicates.
fn candidates(lib: &str) -> Vec<String> {
    let mut names = cudarc::get_lib_name_candidates(lib);
    let mut seen = std::collections::HashSet::new();
    names.retain(|n| seen.insert(n.clone()));
    names
}

/// `e` with its source chain (libloading's `Display` alone says only "dlopen failed").
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}

/// What dlopen says for the candidate names, for an error message: every name tried, and the
/// loader's message for `preferred` (the soname a driver install provides) or else the first.
fn describe_dlopen_failure(what: &str, names: &[String], preferred: &str) -> String {
    let mut shown: Option<(String, String)> = None;
    for name in names {
        // SAFETY: loading a shared library runs its initialisers; these are the CUDA libraries
        // cudarc itself would load.
        match unsafe { libloading::Library::new(name) } {
            Ok(_) => {
                return format!("{what} loads as {name} but not through cudarc (unexpected)");
            }
            Err(e) => {
                if shown.is_none() || name == preferred {
                    shown = Some((name.clone(), error_chain(&e)));
                }
            }
        }
    }
    let detail = shown.map_or_else(|| "no candidates".to_string(), |(n, e)| format!("{n}: {e}"));
    format!("could not load {what} ({detail}); tried {}", names.join(", "))
}

fn first_missing<'a>(get: impl Fn(&str) -> bool, symbols: &'a [&'a str]) -> Option<&'a str> {
    symbols.iter().copied().find(|s| !get(s))
}

static DRIVER: OnceLock<Result<()>> = OnceLock::new();

/// Loads libcuda (without panicking), checks its symbols and calls `cuInit(0)`, once per
/// process; the outcome, error included, is cached.
pub(crate) fn ensure_driver() -> Result<()> {
    DRIVER.get_or_init(load_driver).clone()
}

fn load_driver() -> Result<()> {
    // SAFETY: is_culib_present only tries to dlopen the candidate names.
    if !unsafe { sys::is_culib_present() } {
        return Err(Error::NoDriver {
            reason: describe_dlopen_failure("the CUDA driver library", &candidates("cuda"), "libcuda.so.1"),
        });
    }
    // SAFETY: the library is present, so culib() does not panic.
    let lib = unsafe { sys::culib() };
    let has = |name: &str| {
        // SAFETY: only looks the symbol up; the type is irrelevant as it is never called here.
        unsafe { lib.get::<unsafe extern "C" fn()>(name.as_bytes()).is_ok() }
    };
    if let Some(missing) = first_missing(has, DRIVER_SYMBOLS) {
        return Err(Error::NoDriver {
            reason: format!(
                "the CUDA driver library lacks {missing}: the driver is too old for this crate \
                 (it needs a driver for CUDA 12.8 or newer)"
            ),
        });
    }
    // SAFETY: plain FFI call; the symbol exists.
    let res = unsafe { sys::cuInit(0) };
    match res {
        sys::CUresult::CUDA_SUCCESS => Ok(()),
        sys::CUresult::CUDA_ERROR_NO_DEVICE => Err(Error::NoDevice),
        sys::CUresult::CUDA_ERROR_STUB_LIBRARY => Err(Error::NoDriver {
            reason: driver_error("cuInit", res).to_string(),
        }),
        _ => Err(driver_error("cuInit", res)),
    }
}

/// Turns a `CUresult` into `Ok(())` or an [`Error::Driver`] naming `call`.
///
/// Only called after [`ensure_driver`] succeeded (it calls `cuGetErrorName`).
#[inline]
pub(crate) fn check(call: &'static str, res: sys::CUresult) -> Result<()> {
    if res == sys::CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(driver_error(call, res))
    }
}

/// Builds the [`Error::Driver`] for `res`, asking the driver for its name and description.
#[cold]
pub(crate) fn driver_error(call: &'static str, res: sys::CUresult) -> Error {
    let code = res as u32;
    let mut name_ptr: *const c_char = std::ptr::null();
    let mut desc_ptr: *const c_char = std::ptr::null();
    // SAFETY: the driver writes a pointer to a static NUL-terminated string (or fails).
    let name = unsafe {
        if sys::cuGetErrorName(res, &mut name_ptr) == sys::CUresult::CUDA_SUCCESS && !name_ptr.is_null() {
            CStr::from_ptr(name_ptr).to_string_lossy().into_owned()
        } else {
            format!("{res:?}")
        }
    };
    // SAFETY: as above.
    let description = unsafe {
        if sys::cuGetErrorString(res, &mut desc_ptr) == sys::CUresult::CUDA_SUCCESS && !desc_ptr.is_null() {
            CStr::from_ptr(desc_ptr).to_string_lossy().into_owned()
        } else {
            format!("unrecognized CUresult {code}")
        }
    };
    Error::Driver {
        call,
        code,
        name,
        description,
    }
}

// ---------------------------------------------------------------------------------------------
// NVRTC
// ---------------------------------------------------------------------------------------------

static NVRTC: OnceLock<Result<()>> = OnceLock::new();

/// Loads libnvrtc (without panicking) once per process, preloading it by full path from the
/// usual CUDA install directories when the dynamic loader cannot find it by name.
pub(crate) fn ensure_nvrtc() -> Result<()> {
    NVRTC.get_or_init(load_nvrtc).clone()
}

/// Directories searched for libnvrtc when it is not on the loader's path, in order:
/// `$CUDA_HOME/lib64`, `$CUDA_PATH/lib64`, `/usr/local/cuda/lib64`.
pub(crate) fn nvrtc_search_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(v) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            dirs.push(Path::new(&v).join("lib64"));
        }
    }
    dirs.push(PathBuf::from("/usr/local/cuda/lib64"));
    let mut seen = std::collections::HashSet::new();
    dirs.retain(|d| seen.insert(d.clone()));
    dirs
}

/// dlopens `path` and keeps it loaded for the life of the process, so that a later dlopen by
/// its soname (what cudarc does) finds the already-loaded object.
fn preload(path: &Path) -> std::result::Result<(), String> {
    // SAFETY: loading the NVRTC library (or its builtins) runs their initialisers only.
    match unsafe { libloading::Library::new(path) } {
        Ok(lib) => {
            // Intentionally never unloaded: cudarc's bindings will point into it.
            std::mem::forget(lib);
            Ok(())
        }
        Err(e) => Err(e.to_string()),
    }
}

fn load_nvrtc() -> Result<()> {
    // SAFETY: is_culib_present only tries to dlopen the candidate names.
    let mut present = unsafe { nvrtc_sys::is_culib_present() };
    let names = candidates("nvrtc");
    let mut tried = Vec::new();
    if !present {
        'dirs: for dir in nvrtc_search_dirs() {
            for name in &names {
                let path = dir.join(name);
                if !path.exists() {
                    continue;
                }
                // NVRTC dlopens libnvrtc-builtins by soname; preload it from the same place.
                if let Ok(entries) = std::fs::read_dir(&dir) {
                    for entry in entries.flatten() {
                        let file = entry.file_name();
                        let file = file.to_string_lossy();
                        if file.starts_with("libnvrtc-builtins.so") {
                            let _ = preload(&entry.path());
                        }
                    }
                }
                match preload(&path) {
                    Ok(()) => {
                        // SAFETY: as above.
                        present = unsafe { nvrtc_sys::is_culib_present() };
                        if present {
                            break 'dirs;
                        }
                        tried.push(format!(
                            "{} (loaded, but its soname is none of the names cudarc tries)",
                            path.display()
                        ));
                    }
                    Err(e) => tried.push(format!("{} ({e})", path.display())),
                }
            }
        }
    }
    if !present {
        let dirs: Vec<String> = nvrtc_search_dirs().iter().map(|d| d.display().to_string()).collect();
        let mut reason = describe_dlopen_failure("the NVRTC library", &names, "libnvrtc.so");
        if tried.is_empty() {
            reason.push_str(&format!("; no libnvrtc found in {}", dirs.join(", ")));
        } else {
            reason.push_str(&format!("; by full path: {}", tried.join("; ")));
        }
        return Err(Error::NoNvrtc { reason });
    }
    // SAFETY: the library is present, so culib() does not panic.
    let lib = unsafe { nvrtc_sys::culib() };
    let has = |name: &str| {
        // SAFETY: only looks the symbol up.
        unsafe { lib.get::<unsafe extern "C" fn()>(name.as_bytes()).is_ok() }
    };
    if let Some(missing) = first_missing(has, NVRTC_SYMBOLS) {
        return Err(Error::NoNvrtc {
            reason: format!("the NVRTC library lacks {missing}"),
        });
    }
    Ok(())
}

/// Turns an `nvrtcResult` into `Ok(())` or an [`Error::Nvrtc`] (without log) naming `call`.
pub(crate) fn check_nvrtc(call: &'static str, res: nvrtc_sys::nvrtcResult) -> Result<()> {
    if res == nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
        Ok(())
    } else {
        Err(Error::Nvrtc {
            call,
            name: nvrtc_error_name(res),
            log: None,
        })
    }
}

/// `nvrtcGetErrorString` of `res` (which is the result's name, e.g. `NVRTC_ERROR_COMPILATION`).
pub(crate) fn nvrtc_error_name(res: nvrtc_sys::nvrtcResult) -> String {
    // SAFETY: returns a pointer to a static string or null.
    let p = unsafe { nvrtc_sys::nvrtcGetErrorString(res) };
    if p.is_null() {
        format!("{res:?}")
    } else {
        // SAFETY: non-null, NUL-terminated static string.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }
}

/// `(major, minor)` of the loaded NVRTC.
pub(crate) fn nvrtc_version() -> Result<(i32, i32)> {
    ensure_nvrtc()?;
    let (mut major, mut minor) = (0, 0);
    // SAFETY: out-pointers to locals.
    check_nvrtc("nvrtcVersion", unsafe {
        nvrtc_sys::nvrtcVersion(&mut major, &mut minor)
    })?;
    Ok((major, minor))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_have_no_duplicates_and_include_sonames() {
        let c = candidates("nvrtc");
        let set: std::collections::HashSet<_> = c.iter().collect();
        assert_eq!(set.len(), c.len());
        assert!(c.iter().any(|n| n == "libnvrtc.so" || n == "nvrtc.dll"));
        let c = candidates("cuda");
        assert!(
            c.iter()
                .any(|n| n == "libcuda.so.1" || n == "nvcuda.dll" || n == "cuda.dll")
        );
    }

    #[test]
    fn search_dirs_end_with_usr_local_cuda() {
        let d = nvrtc_search_dirs();
        assert_eq!(d.last().unwrap(), Path::new("/usr/local/cuda/lib64"));
    }

    #[test]
    fn first_missing_finds_the_first() {
        let have = |s: &str| s != "cuB";
        assert_eq!(first_missing(have, &["cuA", "cuB", "cuC"]), Some("cuB"));
        assert_eq!(first_missing(|_| true, &["cuA"]), None);
    }
}
