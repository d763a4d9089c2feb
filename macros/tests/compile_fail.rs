//! The attributes' compile errors, with their exact messages (`tests/compile_fail/*.rs` and the
//! `.stderr` next to each), and a crate that uses every attribute and must compile
//! (`tests/pass/`). The messages are those of the pinned nightly (`TRYBUILD=overwrite` updates
//! them); on stable this file is only built.

#[test]
fn attributes() {
    let t = trybuild::TestCases::new();
    t.pass("tests/pass/*.rs");
    t.compile_fail("tests/compile_fail/*.rs");
}
