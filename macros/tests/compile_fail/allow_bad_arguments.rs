#[cuda_lint::allow(missing_sync, reason = because)]
fn not_a_string() {}

#[cuda_lint::allow(reason = "no lint named")]
fn no_lint() {}

#[cuda_lint::allow(missing_sync = "warn")]
fn not_a_name() {}

#[cuda_lint::allow(missing_sync, reason = "a", reason = "b")]
fn two_reasons() {}

fn main() {
    not_a_string();
    no_lint();
    not_a_name();
    two_reasons();
}
