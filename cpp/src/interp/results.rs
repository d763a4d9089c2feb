//! Results nobody looks at (`unchecked_cuda_result`): a CUDA API call written as a statement of
//! its own, and a kernel launch its function synchronizes after with no `cudaGetLastError`.
//! Read from the syntax: what follows a launch is read in the order of the source.

use super::*;

/// CUDA API functions whose result is no status, or one calling them alone is meant to drop
/// (`cudaGetLastError();` clears the error state).
const NO_STATUS: &[&str] = &[
    "cudaGetErrorString",
    "cudaGetErrorName",
    "cudaGetLastError",
    "cudaPeekAtLastError",
    "cudaCreateChannelDesc",
];

/// Calls that make the host wait for the device: an error of a launch before them, unchecked,
/// is lost there.
const SYNCHRONIZING: &[&str] = &[
    "cudaDeviceSynchronize",
    "cudaThreadSynchronize",
    "cudaStreamSynchronize",
    "cudaEventSynchronize",
    "cudaMemcpy",
    "cudaMemcpy2D",
    "cudaMemcpy3D",
    "cudaMemcpyToSymbol",
    "cudaMemcpyFromSymbol",
    "cuCtxSynchronize",
    "cuStreamSynchronize",
    "cuEventSynchronize",
];

/// How many nodes the look from a launch to its synchronization reads at most.
const MAX_NODES_AFTER_LAUNCH: usize = 20_000;

impl<'s, 't> FileAnalysis<'s, 't> {
    /// An expression statement: a CUDA call whose status it drops, or a kernel launch never
    /// checked before the next synchronization.
    pub(super) fn unchecked_results(&mut self, statement: Node<'t>, flow: &Flow) {
        let Some(call) = statement.named_child(0).and_then(|e| unparenthesized(e)) else {
            return;
        };
        if call.kind() != "call_expression" {
            return;
        }
        let mut c = call.walk();
        if call.children(&mut c).any(|k| k.kind() == "kernel_call_syntax") {
            if let Some((sync, at)) = self.unchecked_until_sync(statement) {
                let check = self.check_macro();
                let event = Event::LaunchUnchecked {
                    sync: &sync,
                    sync_at: self.site(at),
                    check: check.as_deref(),
                };
                self.emit_syntactic(call, event, flow);
            }
            return;
        }
        let Some(f) = call.field("function") else { return };
        let name = callee_name(f, self.src);
        if !self.returns_status(f, &name) {
            return;
        }
        let check = self.check_macro();
        let event = Event::StatusDropped {
            call: &name,
            check: check.as_deref(),
        };
        self.emit_syntactic(call, event, flow);
    }

    /// Whether `name`, called through `f`, is a CUDA runtime or driver API function that returns
    /// a status (not one the file defines, not a method).
    fn returns_status(&self, f: Node<'t>, name: &str) -> bool {
        matches!(f.kind(), "identifier" | "qualified_identifier")
            && !self.functions.contains_key(name)
            && !NO_STATUS.iter().any(|n| name.starts_with(n))
            && cuda_lint_c_api::lookup(name).is_some_and(|f| {
                matches!(
                    f.family,
                    cuda_lint_c_api::Family::Runtime | cuda_lint_c_api::Family::Driver
                )
            })
    }

    /// From a launch's statement on, in the order of the source until its function ends: the
    /// synchronizing call reached first with no check of the error state before it, and where.
    /// `None` where a check, a call that may check, or a `return` comes first.
    fn unchecked_until_sync(&self, statement: Node<'t>) -> Option<(String, Node<'t>)> {
        let mut seen = 0;
        let mut cur = statement;
        loop {
            let mut next = cur.next_named_sibling();
            while let Some(s) = next {
                match self.scan_for_check(s, &mut seen) {
                    Scan::Checked => return None,
                    Scan::Synchronized(name, at) => return Some((name, at)),
                    Scan::Nothing => {}
                }
                next = s.next_named_sibling();
            }
            let parent = cur.parent()?;
            if matches!(
                parent.kind(),
                "function_definition" | "lambda_expression" | "translation_unit"
            ) {
                return None;
            }
            cur = parent;
        }
    }

    /// What `n` does to the launch before it, read in source order.
    fn scan_for_check(&self, n: Node<'t>, seen: &mut usize) -> Scan<'t> {
        let mut stack = vec![n];
        while let Some(x) = stack.pop() {
            *seen += 1;
            if *seen > MAX_NODES_AFTER_LAUNCH {
                return Scan::Checked;
            }
            match x.kind() {
                // The function may leave here: its caller may check.
                "return_statement" | "throw_statement" | "lambda_expression" => return Scan::Checked,
                "call_expression" => {
                    if let Some(f) = x.field("function") {
                        let name = callee_name(f, self.src);
                        // Its arguments run first (`CUDA_CHECK(cudaDeviceSynchronize())`).
                        if let Some(args) = x.field("arguments") {
                            match self.scan_for_check(args, seen) {
                                Scan::Nothing => {}
                                found => return found,
                            }
                        }
                        // A check given a CUDA call (`CUDA_CHECK(cudaMemcpy(..))`) checks that
                        // call's status, not the error state the launch left.
                        let wraps_a_call = x.field("arguments").is_some_and(|a| self.has_cuda_call(a));
                        if !wraps_a_call && self.may_check(&name) {
                            return Scan::Checked;
                        }
                        if SYNCHRONIZING.contains(&name.as_str()) && !self.functions.contains_key(name.as_str()) {
                            return Scan::Synchronized(name, x);
                        }
                        continue;
                    }
                }
                _ => {}
            }
            // Children in source order: pushed last first.
            let mut c = x.walk();
            let children: Vec<Node<'t>> = x.named_children(&mut c).collect();
            stack.extend(children.into_iter().rev());
        }
        Scan::Nothing
    }

    /// Whether `n` holds a call of a CUDA API function.
    fn has_cuda_call(&self, n: Node<'t>) -> bool {
        let mut stack = vec![n];
        let mut seen = 0;
        while let Some(x) = stack.pop() {
            seen += 1;
            if seen > 1_000 {
                return false;
            }
            if x.kind() == "call_expression"
                && x.field("function")
                    .is_some_and(|f| cuda_lint_c_api::lookup(&callee_name(f, self.src)).is_some())
            {
                return true;
            }
            let mut c = x.walk();
            stack.extend(x.named_children(&mut c));
        }
        false
    }

    /// Whether a call of `name` reads the error state or may: `cudaGetLastError`,
    /// `cudaPeekAtLastError`, a function or macro of the file whose body calls them, or a
    /// function or macro the file does not show whose name says it checks errors.
    fn may_check(&self, name: &str) -> bool {
        if matches!(name, "cudaGetLastError" | "cudaPeekAtLastError") {
            return true;
        }
        if let Some(def) = self.functions.get(name) {
            let body = self.text(*def);
            return body.contains("cudaGetLastError") || body.contains("cudaPeekAtLastError");
        }
        if let Some(body) = self.macro_body(name) {
            return body.contains("cudaGetLastError") || body.contains("cudaPeekAtLastError");
        }
        if cuda_lint_c_api::lookup(name).is_some() {
            return false;
        }
        let lower = name.to_ascii_lowercase();
        lower.contains("check") || lower.contains("err")
    }

    /// The function-like macro the file checks CUDA statuses with (`CUDA_CHECK`), if it defines
    /// one: its body compares with `cudaSuccess`/`CUDA_SUCCESS` or prints the error's string.
    pub(super) fn check_macro(&self) -> Option<String> {
        self.function_macros()
            .iter()
            .find(|(_, body)| {
                ["cudaSuccess", "CUDA_SUCCESS", "cudaGetErrorString"]
                    .iter()
                    .any(|k| body.contains(k))
            })
            .map(|(name, _)| name.clone())
    }

    /// The body of the function-like macro `name` the file defines, if it does.
    fn macro_body(&self, name: &str) -> Option<&str> {
        self.function_macros()
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, body)| body.as_str())
    }

    /// The file's function-like macros (`#define NAME(..) body`, continued lines joined), read
    /// once.
    fn function_macros(&self) -> &[(String, String)] {
        self.function_macros.get_or_init(|| {
            let mut out = Vec::new();
            let mut lines = self.src.lines();
            while let Some(line) = lines.next() {
                let t = line.trim_start();
                let Some(rest) = t.strip_prefix("#define").or_else(|| t.strip_prefix("# define")) else {
                    continue;
                };
                let rest = rest.trim_start();
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                let mut body = line.to_string();
                let mut last = line;
                while last.trim_end().ends_with('\\') {
                    match lines.next() {
                        Some(l) => {
                            body.push_str(l);
                            last = l;
                        }
                        None => break,
                    }
                }
                if !name.is_empty() && rest[name.len()..].starts_with('(') {
                    out.push((name, body));
                }
            }
            out
        })
    }
}

/// What the code after a launch does first.
enum Scan<'t> {
    Nothing,
    Checked,
    Synchronized(String, Node<'t>),
}

fn unparenthesized(mut n: Node<'_>) -> Option<Node<'_>> {
    while n.kind() == "parenthesized_expression" {
        n = n.named_child(0)?;
    }
    Some(n)
}
