//! `cuda_lint::unverified`: what the analysis could not check, for careful reviewers. Fires
//! - at a launch that uses two mappings of one physical allocation when the kernel's source is
//!   not visible (or its name is not a constant, or the source does not define it): whether it
//!   fences cannot be checked (`unfenced_vmm_alias` fires only on source it read);
//! - at a host read of memory a kernel whose source was not seen may write: the analysis takes
//!   such a kernel to write every argument, which is no evidence (`missing_sync` reports only
//!   writes it saw).

use super::unfenced_vmm_alias::{alias_in_launch, label_mappings};
use super::{Cx, named, paths_suffix};
use crate::diagnostic::{Diagnostic, Finding};
use crate::events::{Event, Kernel};
use crate::memory::{Access, MemKind};
use crate::state::Ext;

declare_lint! {
    /// ### What it does
    /// Points at what cuda-lint could not check, where a misuse would hide if the code it could
    /// not see did the wrong thing:
    /// - a kernel launch that uses two VMM mappings of one physical allocation, where the kernel's
    ///   CUDA source is not visible, so whether it executes `fence.proxy.alias` is unknown;
    /// - a host read of memory that a kernel whose source is not visible may write while it
    ///   runs (the read is before any synchronization).
    ///
    /// The default lints report only what the code shows (a finding needs evidence): these
    /// cases are silent there. Turn this lint on (`-W cuda_lint::unverified`, or
    /// `cuda_lint::pedantic`) to review them.
    ///
    /// ### Why is this bad?
    /// It is not, necessarily: each finding is something cuda-lint cannot prove right or
    /// wrong. Making the code visible turns it into a checked fact, one way or the other:
    /// - compile the kernel from CUDA source the crate holds, as a string constant or
    ///   `include_str!("kernels.cu")`, with NVRTC (`compile_ptx`, `load_cuda`), so cuda-lint reads
    ///   which parameters it writes and whether it fences;
    /// - name the kernel with a constant (`module.load_function("scale")`);
    /// - for a kernel from a PTX or cubin file, describe it with
    ///   `#[cuda_lint::kernels(source = "...")]` (see the attributes' README), or give the
    ///   wrapper that launches it an effect summary (`#[cuda_lint::launches(..)]`, or
    ///   `[[functions]]` in `cuda-lint.toml`).
    ///
    /// ### Example
    /// ```rust,ignore
    /// let module = ctx.load_module(Ptx::from_file("kernels.ptx"))?;
    /// let scale = module.load_function("scale")?;
    /// unsafe { stream.launch_builder(&scale).arg(&mut out).launch(cfg)? };
    /// let first = host_view[0]; // `scale` may write `out`: cuda-lint cannot see it
    /// ```
    ///
    /// Use instead:
    /// ```rust,ignore
    /// let ptx = compile_ptx(include_str!("kernels.cu"))?;
    /// let scale = ctx.load_module(ptx)?.load_function("scale")?;
    /// ```
    pub UNVERIFIED = "unverified", Allow, Pedantic, "what cuda-lint could not check: kernels whose source it did not see"
}

pub fn check<S: Copy + PartialEq, X: Ext>(event: &Event<'_, S>, cx: &Cx<'_, S, X>, out: &mut Vec<Finding<S>>) {
    match *event {
        Event::Launch {
            slots,
            apart,
            written,
            kernel: Some(kernel),
        } if !matches!(kernel, Kernel::Unfenced { .. }) => {
            let Some((a, b)) = alias_in_launch(slots, apart, written, cx) else {
                return;
            };
            let what = match kernel {
                Kernel::SourceNotVisible { name } => format!(
                    "kernel{} uses two mappings of one physical allocation; its source is not visible, so \
                     whether it executes `fence.proxy.alias` is not checked",
                    name.as_ref().map(|n| format!(" `{n}`")).unwrap_or_default()
                ),
                Kernel::NameNotConstant => "a kernel whose name is not a constant uses two mappings of one \
                                            physical allocation: whether it fences is not checked"
                    .to_string(),
                Kernel::NotInSource { name } => format!(
                    "kernel `{name}` uses two mappings of one physical allocation, and the source it is \
                     compiled from does not define it: whether it fences is not checked"
                ),
                Kernel::Unfenced { .. } => return,
            };
            let (first, second) = (cx.describe.region(a), cx.describe.region(b));
            let mut diag = Diagnostic::new(what);
            label_mappings(&mut diag, cx.span, &first, &second);
            diag.via("the launch happens").help(
                "make the kernel's CUDA source visible (a string or `include_str!` compiled with NVRTC, \
                 named with a constant) so cuda-lint can check it for `fence.proxy.alias`",
            );
            out.push(cx.finding(&UNVERIFIED, "unverified_alias", false, diag));
        }
        Event::HostAccess {
            regions,
            access: Access::Read,
        } => {
            // Device-only memory the host touches is `host_deref_device_ptr`'s finding.
            if !super::host_deref_device_ptr::device_only(regions, cx).is_empty() {
                return;
            }
            for l in regions.iter() {
                if cx.regions.mem_kind(l).is_none_or(|k| k == MemKind::Unknown) {
                    continue;
                }
                for op in cx.state.inflight_may.iter() {
                    let info = cx.machine.op(op);
                    if !info.writes_unseen
                        || !cx.machine.may_be_running(cx.state, op)
                        || !cx.machine.uses_current(cx.state, op, l, cx.regions)
                        || !cx.machine.can_be_in_flight(cx.state, l, cx.regions)
                        || !info.writes.iter().any(|w| cx.regions.overlaps(w, l))
                    {
                        continue;
                    }
                    let target = cx.describe.region(cx.regions.root(l));
                    let op_desc = cx.describe.in_flight(op);
                    let some_paths = !cx.state.surely_running(op);
                    let mut diag = Diagnostic::new(format!(
                        "host read of {} while a kernel whose source cuda-lint did not see may write it{}",
                        named(&target.name, "memory"),
                        paths_suffix(some_paths)
                    ));
                    if op_desc.span != cx.span {
                        diag.label(op_desc.span, "the kernel is launched here".to_string());
                    }
                    diag.via("the access happens")
                        .note("cuda-lint takes a kernel it cannot read to write every argument; it may not")
                        .help(
                            "make the kernel's CUDA source visible (a string or `include_str!` compiled with \
                             NVRTC) so cuda-lint sees what it writes, or synchronize before the read",
                        );
                    out.push(cx.finding(&UNVERIFIED, "unverified_read", some_paths, diag));
                    return;
                }
            }
        }
        Event::Enqueue { op: new } => {
            // New work that uses what unordered work on another stream is only taken to write
            // (or that is only taken to write what the other uses).
            let op = cx.machine.op(new);
            for other in cx.state.inflight_may.iter() {
                if other == new
                    || !cx.machine.may_be_running(cx.state, other)
                    || cx.machine.ordered_before(cx.state, other, &op.streams)
                {
                    continue;
                }
                let prev = cx.machine.op(other);
                if !op.writes_unseen && !prev.writes_unseen {
                    continue;
                }
                let overlap = |a: &crate::regions::LocSet, b: &crate::regions::LocSet| {
                    a.iter().find(|x| {
                        b.iter().any(|y| cx.regions.overlaps(*x, y))
                            && cx.machine.uses_current(cx.state, other, *x, cx.regions)
                            && cx.regions.mem_kind(*x).is_some_and(|k| k != MemKind::Unknown)
                    })
                };
                let hit = if op.writes_unseen { overlap(&op.writes, &prev.reads) } else { None }
                    .or_else(|| if prev.writes_unseen { overlap(&op.reads, &prev.writes) } else { None });
                let Some(l) = hit else { continue };
                let target = cx.describe.region(cx.regions.root(l));
                let prev_desc = cx.describe.in_flight(other);
                let some_paths = !cx.state.surely_running(other);
                let mut diag = Diagnostic::new(format!(
                    "{} is used by work on another stream while a kernel whose source cuda-lint did not see may write it{}",
                    named(&target.name, "memory"),
                    paths_suffix(some_paths)
                ));
                if prev_desc.span != cx.span {
                    diag.label(prev_desc.span, format!("{} started here", prev_desc.what));
                }
                diag.via("the work is enqueued")
                    .note("cuda-lint takes a kernel it cannot read to write every argument; it may not")
                    .help(format!(
                        "make the kernel's CUDA source visible so cuda-lint sees what it writes, or order the \
                         streams: {}",
                        prev_desc.advice.order_streams
                    ));
                out.push(cx.finding(&UNVERIFIED, "unverified_reuse", some_paths, diag));
                return;
            }
        }
        _ => {}
    }
}
