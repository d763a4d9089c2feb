//! Containing cuda-lint's own failures: a panic while analysing one body becomes a "could not
//! analyse" note for that body, and the compilation goes on.
//!
//! One panic hook is installed at driver start ([`install_panic_hook`]), never swapped per body
//! (rustc lints modules in parallel under `-Zthreads`, and swapping a process-wide hook from two
//! threads would race). The hook checks a thread-local flag set while a body is analysed: a panic
//! of ours there is recorded for the note instead of printed; anything else (rustc's own bugs and
//! fatal errors, panics outside the analysis) goes to rustc's ICE hook as usual.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};

thread_local! {
    static ANALYSING: Cell<bool> = const { Cell::new(false) };
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Whether a panic payload is rustc's (a fatal error or a compiler bug), which must unwind on.
fn is_rustcs(payload: &(dyn std::any::Any + Send)) -> bool {
    payload.is::<rustc_span::fatal_error::FatalErrorMarker>() || payload.is::<rustc_errors::ExplicitBug>()
}

fn message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "internal error".to_string())
}

/// Installs the hook (once, from the driver's `main`, after rustc's ICE hook).
pub fn install_panic_hook() {
    let previous = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if ANALYSING.with(Cell::get) && !is_rustcs(info.payload()) {
            let at = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            LAST_PANIC.with(|last| *last.borrow_mut() = Some(format!("{}{at}", message(info.payload()))));
        } else {
            previous(info);
        }
    }));
}

/// Runs `analyse`, turning a panic of cuda-lint's into an error message. rustc's own fatal
/// errors and bugs go on unwinding, as rustc expects.
pub fn contained<T>(analyse: impl FnOnce() -> T) -> Result<T, String> {
    struct Flag(bool);
    impl Drop for Flag {
        fn drop(&mut self) {
            ANALYSING.with(|a| a.set(self.0));
        }
    }
    let _restore = Flag(ANALYSING.with(|a| a.replace(true)));
    panic::catch_unwind(AssertUnwindSafe(analyse)).map_err(|payload| {
        if is_rustcs(&*payload) {
            panic::resume_unwind(payload);
        }
        LAST_PANIC
            .with(|last| last.borrow_mut().take())
            .unwrap_or_else(|| message(&*payload))
    })
}
