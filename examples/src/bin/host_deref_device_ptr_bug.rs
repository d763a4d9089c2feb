//! The `host_deref_device_ptr` misuse, really happening: the host dereferences a device pointer.
//!
//! 1024 floats (0, 1, 2, ...) are copied to device memory (`cuMemAlloc`), and the host then reads
//! the first one through the buffer's device address cast to `*const f32`. A device address is
//! not host memory: on a discrete GPU the read faults. So that the program can report what
//! happened, the read runs in a child process (this program re-executed with `--child`), and the
//! parent prints how the child ended, e.g. `child died of signal 11 (SIGSEGV)`.
//!
//! The C++ version (`anchors/cuda-cpp/seed002_host_read_device.cu`) died of a segmentation fault
//! on an H200 (exit status 139), with and without a `cudaDeviceSynchronize` before the read, and
//! compute-sanitizer only said "process didn't terminate successfully". The fix
//! (`host_deref_device_ptr_fixed`) copies the data back with `Stream::clone_dtoh`.

use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::process::Command;

use cuda_lint_examples::{open_gpu, signal_name};
use cuda_lint_runtime::{Context, Error};

const CHILD_ARG: &str = "--child";
const N: usize = 1024;

fn main() -> Result<(), Error> {
    if std::env::args().nth(1).as_deref() == Some(CHILD_ARG) {
        return child();
    }
    println!("host_deref_device_ptr (bug): the host reads device memory through its address");
    let Some(_ctx) = open_gpu("host_deref_device_ptr_bug")? else {
        return Ok(());
    };
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            println!("FAILED: cannot find this program's executable: {e}");
            std::process::exit(1);
        }
    };
    println!(
        "running the host read in a child process: {} {CHILD_ARG}",
        exe.display()
    );
    let status = match Command::new(&exe).arg(CHILD_ARG).status() {
        Ok(status) => status,
        Err(e) => {
            println!("FAILED: cannot start the child process: {e}");
            std::process::exit(1);
        }
    };
    if let Some(sig) = status.signal() {
        println!(
            "child died of signal {sig} ({}){}",
            signal_name(sig),
            if status.core_dumped() { ", core dumped" } else { "" }
        );
        println!(
            "=> dereferencing a device pointer on the host crashed the process: device memory is \
             not host memory (C++ reference on an H200: Segmentation fault, status 139)"
        );
    } else {
        match status.code() {
            Some(0) => println!(
                "child exited normally (status 0): the host read did not fault on this machine, \
                 but what it read is not the device data (see the child's line above)"
            ),
            Some(code) => println!("child failed with exit status {code} before or at the read"),
            None => println!("child ended without an exit status or a signal"),
        }
    }
    Ok(())
}

/// The child: puts 1024 floats in device memory, then reads one on the host through its device
/// address.
fn child() -> Result<(), Error> {
    let ctx = Context::new(0)?;
    let s = ctx.new_stream()?;
    let data: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let dev = s.clone_htod(&data)?;
    println!(
        "child: {N} floats are in device memory at {}; reading the first one on the host",
        dev.device_ptr()
    );
    let _ = std::io::stdout().flush();
    let p = dev.device_ptr().as_raw() as *const f32;
    // SAFETY: none: `p` is a device address, not host memory. This is the bug being shown.
    let x = unsafe { *p }; // cuda_lint::host_deref_device_ptr
    println!("child: the host read {x} there without faulting (the device holds 0 there)");
    Ok(())
}
