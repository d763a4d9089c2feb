//! Peers' labelled suites, run where they are (`../shared/public-suites`, beside the
//! repository; never copied into it): CuSan's lit tests and DRACC's CUDA programs. Skipped, with
//! the reason printed, where that folder is not there.
//!
//! - CuSan (`cusan/pass`): a file whose `CHECK` lines expect a data race races when built
//!   without `-DCUSAN_SYNC`, and the files with `CHECK-SYNC-NOT` are race-free built with it.
//!   The MPI files are read with CUDA-aware MPI as an API family (`lint/c-api/src/mpi.rs`).
//!   The files CuSan itself marks `XFAIL` are left out (they are correct only because
//!   `cudaMalloc`/`cudaHostAlloc` happened to synchronize, which `missing_sync` reports).
//! - DRACC (`dracc`): 13 of its 15 host<->accelerator programs are reported (see
//!   `DRACC_REPORTED`); its working programs (`_no`) are not.
//!
//! Known misses are listed by name: a fix that finds one fails the test until the list is
//! updated, so the figures in the README stay true.

use std::path::{Path, PathBuf};
use std::process::Command;

fn suites() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/public-suites");
    if dir.is_dir() {
        Some(dir)
    } else {
        println!(
            "skipped: {} is not there (the public suites live beside the repository)",
            dir.display()
        );
        None
    }
}

/// The lint of each finding of `cuda-lint check` on `file`, built with `defines`.
fn findings(file: &Path, defines: &[&str]) -> Vec<String> {
    findings_with(file, defines, &[])
}

/// [`findings`] with lint flags (`-W NAME`) first.
fn findings_with(file: &Path, defines: &[&str], flags: &[&str]) -> Vec<String> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cuda-lint"));
    cmd.arg("check").arg("--message-format=json").args(flags);
    for d in defines {
        cmd.arg("--define").arg(d);
    }
    let out = cmd.arg(file).output().unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v.get("lint").and_then(|l| l.as_str()).map(str::to_string))
        .collect()
}

fn sorted_files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    files.sort();
    files
}

fn name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

/// CuSan racy files not reported. None since kernels' writes are followed into the fields of
/// struct parameters (11 and 13: a struct of device pointers passed by value, whose kernels
/// write different fields; 2026-11-26).
const CUSAN_KNOWN_MISSES: &[&str] = &[];

/// True findings of other lints in CuSan's files, read one by one (2026-11-27): 07 frees
/// `d_result` while the kernel writing it may run, before its `cudaDeviceSynchronize`; 08 and 21
/// copy asynchronously into `malloc`'d memory; 12 releases `cudaHostAlloc` memory with
/// `cudaFree`.
const CUSAN_TRUE_OTHERS: &[(&str, &str)] = &[
    ("07_cuda_to_mpi_read.c", "cuda_lint::relies_on_implicit_sync"),
    ("08_cudamemcpy_to_mpi.c", "cuda_lint::pageable_async_copy"),
    ("12_struct_ptr.c", "cuda_lint::mismatched_free"),
    ("21_chunked_streams_example.c", "cuda_lint::pageable_async_copy"),
];

/// The findings a CuSan test is about: everything but the warnings on buffers its tests leave
/// unfreed, unread or unwritten on purpose (they test races only; those warnings are true), and
/// the true findings of other lints listed in [`CUSAN_TRUE_OTHERS`].
fn races_and_errors(file: &str, found: Vec<String>) -> Vec<String> {
    let about_contents = [
        "cuda_lint::device_memory_leak",
        "cuda_lint::unread_kernel_output",
        "cuda_lint::uninitialized_device_read",
    ];
    found
        .into_iter()
        .filter(|l| !about_contents.contains(&l.as_str()) && !CUSAN_TRUE_OTHERS.contains(&(file, l.as_str())))
        .collect()
}

#[test]
fn cusan_racy_files_are_reported_and_synced_ones_are_not() {
    let Some(dir) = suites() else { return };
    let pass = dir.join("cusan/pass");
    let (mut racy, mut found, mut synced, mut silent) = (0, 0, 0, 0);
    let (mut mpi_racy, mut mpi_found, mut mpi_synced, mut mpi_silent) = (0, 0, 0, 0);
    let mut wrong = Vec::new();
    for f in sorted_files(&pass, "c") {
        let text = std::fs::read_to_string(&f).unwrap();
        if text.contains("XFAIL") {
            continue;
        }
        let mpi = text.contains("MPI_");
        let expects_race = text
            .lines()
            .any(|l| (l.contains("CHECK:") || l.contains("CHECK-DAG:")) && l.contains("data race"));
        let race_free_when_synced = text.contains("CHECK-SYNC-NOT");
        let plain = races_and_errors(&name(&f), findings(&f, &[]));
        if expects_race {
            racy += 1;
            mpi_racy += usize::from(mpi);
            let reported = plain.iter().any(|l| l == "cuda_lint::missing_sync");
            found += usize::from(reported);
            mpi_found += usize::from(mpi && reported);
            let known = CUSAN_KNOWN_MISSES.contains(&name(&f).as_str());
            if reported == known {
                wrong.push(format!("{}: reported {reported}, known miss {known}", name(&f)));
            }
        } else if !plain.is_empty() {
            wrong.push(format!("{}: race-free, reported {plain:?}", name(&f)));
        }
        if race_free_when_synced {
            synced += 1;
            mpi_synced += usize::from(mpi);
            let with_sync = races_and_errors(&name(&f), findings(&f, &["CUSAN_SYNC"]));
            silent += usize::from(with_sync.is_empty());
            mpi_silent += usize::from(mpi && with_sync.is_empty());
            if !with_sync.is_empty() {
                wrong.push(format!("{}: with -DCUSAN_SYNC, reported {with_sync:?}", name(&f)));
            }
        }
    }
    println!(
        "CuSan: {found} of {racy} racy files reported ({mpi_found} of {mpi_racy} with MPI); {silent} of {synced} \
         silent with -DCUSAN_SYNC ({mpi_silent} of {mpi_synced} with MPI)"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(racy >= 24, "fewer racy files than the suite holds: {racy}");
    assert!(mpi_racy >= 9, "fewer racy MPI files than the suite holds: {mpi_racy}");
}

/// DRACC's programs a lint of today reports: 13 of its 15 host<->accelerator programs (008-019,
/// 024-026), each for the error it is named for: the never-allocated matrix (008,
/// `unallocated_pointer`), copies larger than their buffers (009, 015, 016,
/// `copy_out_of_bounds`), the never-uploaded matrix (010, `uninitialized_device_read`), the
/// result never copied back (012, `unread_kernel_output`, allow by default: the suite runs with
/// `-W cuda_lint::unread_kernel_output`; without it 012 is silent and 12 of 15 are reported), the missing `cudaFree` (014,
/// `device_memory_leak`), the flipped copies (017, 018, `memcpy_kind_mismatch`), the missing waits
/// (024-026, `missing_sync`); and 019-021, whose copy-out states `cudaMemcpyHostToDevice` into
/// `malloc`'d memory besides the error they are named for (a true `memcpy_kind_mismatch`). Not
/// reported: 011 and 013, a copy of half the matrix in or half the result out (which half the
/// kernel and the host then use is not known), and the device-side races no host lint sees.
const DRACC_REPORTED: &[&str] = &[
    "DRACC_CUDA_008_MxV_Missing_Alloc_yes.cu",
    "DRACC_CUDA_009_MxV_partially_Missing_Alloc_yes.cu",
    "DRACC_CUDA_010_MxV_Missing_Data_yes.cu",
    "DRACC_CUDA_012_MxV_outdated_Data_yes.cu",
    "DRACC_CUDA_014_MxV_Missing_Free_other.cu",
    "DRACC_CUDA_015_MxV_out_of_bounds_copyin_yes.cu",
    "DRACC_CUDA_016_MxV_out_of_bounds_copyout_yes.cu",
    "DRACC_CUDA_017_MxV_pointer_flip_yes.cu",
    "DRACC_CUDA_018_MxV_pointer_flip_copyout_yes.cu",
    "DRACC_CUDA_019_Large_Data_Alloc_yes.cu",
    "DRACC_CUDA_020_Large_Grid_Dim_yes.cu",
    "DRACC_CUDA_021_Large_Block_Dim_yes.cu",
    "DRACC_CUDA_024_MxV_copy_missing_wait_yes.cu",
    "DRACC_CUDA_025_MxV_Kernel_missing_wait_yes.cu",
    "DRACC_CUDA_026_MxV_Kernel_wrong_update_yes.cu",
];

#[test]
fn dracc_missing_waits_are_reported_and_working_programs_are_not() {
    let Some(dir) = suites() else { return };
    let mut wrong = Vec::new();
    let mut reported = 0;
    for f in sorted_files(&dir.join("dracc"), "cu") {
        let n = name(&f);
        let got = findings_with(&f, &[], &["-W", "cuda_lint::unread_kernel_output"]);
        if n.ends_with("_no.cu") {
            if !got.is_empty() {
                wrong.push(format!("{n}: a working program, reported {got:?}"));
            }
        } else if DRACC_REPORTED.contains(&n.as_str()) {
            reported += 1;
            if got.is_empty() {
                wrong.push(format!("{n}: not reported"));
            }
        } else if !got.is_empty() {
            wrong.push(format!("{n}: reported {got:?}, not in DRACC_REPORTED"));
        }
    }
    println!("DRACC: {reported} programs reported, working programs silent");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
