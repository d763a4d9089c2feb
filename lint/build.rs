//! Bakes the toolchain this driver is built with into the binaries, so that `cargo cuda-lint`
//! finds `librustc_driver` without rustup's help (an rpath, as dylint does) and runs cargo with
//! the same toolchain (`RUSTUP_TOOLCHAIN`), whatever toolchain the linted project pins.

use std::process::Command;

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let sysroot = Command::new(&rustc)
        .args(["--print", "sysroot"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .expect("`rustc --print sysroot` failed");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{sysroot}/lib");
    println!("cargo:rustc-env=CUDA_LINT_SYSROOT={sysroot}");
    // rustup names the toolchain directory after the toolchain: .../toolchains/<name>.
    let toolchain = std::path::Path::new(&sysroot)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    println!("cargo:rustc-env=CUDA_LINT_TOOLCHAIN={toolchain}");
    println!("cargo:rerun-if-env-changed=RUSTC");
}
