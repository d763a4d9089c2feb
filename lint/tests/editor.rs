//! The editor setup of README ("Editors"), end to end: rust-analyzer, over LSP, with
//! `check.overrideCommand` set to `cargo cuda-lint --message-format=json`, on a scratch crate.
//! It must publish the finding with rustc's code split as rust-analyzer splits clippy's
//! (`source` `cuda_lint`, `code` `missing_sync`), and offer `missing_sync`'s quick fix at the
//! finding's own range, with a one-line title. Skipped, with the reason printed, where
//! rust-analyzer is not installed (`.ci/setup` installs it).

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const SOURCE: &str = r#"use cuda_lint_runtime::{Context, DeviceBuffer, Result, Stream};

pub fn download(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { s.copy_dtoh_async(&mut host, dev)? };
    let first = host[0];
    Ok(first)
}
"#;

/// How long rust-analyzer may take to load the crate and run the check.
const TIMEOUT: Duration = Duration::from_secs(300);

fn scratch() -> PathBuf {
    let repo = common::repo();
    let dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo.join("target"))
        .join("editor-test")
        .join("editor-user");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"editor-user\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
             [dependencies]\ncuda-lint-runtime = {{ path = {:?} }}\n\n[workspace]\n",
            repo.join("runtime")
        ),
    )
    .unwrap();
    std::fs::copy(repo.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    std::fs::write(dir.join("src/lib.rs"), SOURCE).unwrap();
    dir
}

/// `rust-analyzer` of the pinned toolchain (or on the PATH), if it runs.
fn rust_analyzer() -> Option<Command> {
    let toolchain = std::fs::read_to_string(common::repo().join("rust-toolchain.toml"))
        .ok()
        .and_then(|t| {
            t.lines().find_map(|l| {
                l.trim()
                    .strip_prefix("channel")
                    .map(|v| v.trim_matches([' ', '=', '"']).to_string())
            })
        })?;
    let pinned = || {
        let mut c = Command::new("rustup");
        c.args(["run", &toolchain, "rust-analyzer"]);
        c
    };
    for mut candidate in [pinned(), Command::new("rust-analyzer")] {
        let runs = candidate
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if runs {
            let mut c = if candidate.get_program() == "rustup" {
                pinned()
            } else {
                Command::new("rust-analyzer")
            };
            c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
            return Some(c);
        }
    }
    None
}

struct Server {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    next_id: u64,
}

impl Server {
    fn start(mut command: Command, dir: &Path) -> Server {
        let mut child = command
            .current_dir(dir)
            .env("CARGO_NET_OFFLINE", "true")
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, messages) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut length = None;
                loop {
                    let mut header = String::new();
                    if reader.read_line(&mut header).unwrap_or(0) == 0 {
                        return;
                    }
                    let header = header.trim_end();
                    if header.is_empty() {
                        break;
                    }
                    if let Some(n) = header.strip_prefix("Content-Length: ") {
                        length = n.parse::<usize>().ok();
                    }
                }
                let Some(length) = length else { return };
                let mut body = vec![0; length];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                if let Ok(message) = serde_json::from_slice::<Value>(&body)
                    && tx.send(message).is_err()
                {
                    return;
                }
            }
        });
        Server {
            child,
            stdin,
            messages,
            next_id: 1,
        }
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Sends a request and waits for its response, answering the server's own requests
    /// (configuration, progress) meanwhile; notifications go to `seen`.
    fn request(&mut self, method: &str, params: Value, seen: &mut Vec<Value>, deadline: Instant) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let message = self.next(deadline).unwrap_or_else(|| panic!("no answer to {method}"));
            if message["id"] == id && message.get("method").is_none() {
                return message;
            }
            seen.push(message);
        }
    }

    /// The next message, answering requests from the server (it waits for them).
    fn next(&mut self, deadline: Instant) -> Option<Value> {
        let left = deadline.checked_duration_since(Instant::now())?;
        let message = self.messages.recv_timeout(left).ok()?;
        if let (Some(id), Some(method)) = (message.get("id"), message.get("method").and_then(Value::as_str)) {
            let result = match method {
                "workspace/configuration" => {
                    let n = message["params"]["items"].as_array().map_or(1, Vec::len);
                    json!(vec![Value::Null; n])
                }
                _ => Value::Null,
            };
            self.send(json!({ "jsonrpc": "2.0", "id": id, "result": result }));
        }
        Some(message)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn rust_analyzer_shows_the_finding_and_offers_the_fix_at_it() {
    let Some(command) = rust_analyzer() else {
        println!("rust-analyzer is not installed: the editor test is skipped (`.ci/setup` installs it)");
        return;
    };
    let dir = scratch();
    let uri = format!("file://{}", dir.join("src/lib.rs").display());
    let root = format!("file://{}", dir.display());
    let lint = env!("CARGO_BIN_EXE_cargo-cuda-lint");
    let deadline = Instant::now() + TIMEOUT;
    let mut server = Server::start(command, &dir);
    let mut seen = Vec::new();
    let options = json!({
        "check": { "overrideCommand": [lint, "cuda-lint", "--offline", "--message-format=json"] },
        "checkOnSave": true,
        "cachePriming": { "enable": false },
        "procMacro": { "enable": false },
        "cargo": { "buildScripts": { "enable": false } },
    });
    let init = server.request(
        "initialize",
        json!({
            "processId": std::process::id(),
            "rootUri": root,
            "workspaceFolders": [{ "uri": root, "name": "editor-user" }],
            "capabilities": {
                "textDocument": {
                    "publishDiagnostics": { "relatedInformation": true },
                    "codeAction": { "codeActionLiteralSupport": { "codeActionKind": { "valueSet": ["quickfix"] } } }
                },
                "workspace": { "configuration": false }
            },
            "initializationOptions": options,
        }),
        &mut seen,
        deadline,
    );
    assert!(init.get("result").is_some(), "initialize failed: {init}");
    server.notify("initialized", json!({}));
    server.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "rust", "version": 1, "text": SOURCE } }),
    );
    server.notify("textDocument/didSave", json!({ "textDocument": { "uri": uri } }));

    // Wait for the finding (and save again now and then: the first check may start before
    // the workspace is loaded).
    let mut finding = None;
    let mut last_save = Instant::now();
    while finding.is_none() {
        let message = seen
            .pop()
            .or_else(|| server.next(deadline))
            .unwrap_or_else(|| panic!("rust-analyzer published no cuda_lint finding within {TIMEOUT:?}"));
        if message["method"] == "textDocument/publishDiagnostics" && message["params"]["uri"] == uri.as_str() {
            finding = message["params"]["diagnostics"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|d| d["source"] == "cuda_lint" && d["code"] == "missing_sync" && d["severity"] == 1)
                .cloned();
        }
        if last_save.elapsed() > Duration::from_secs(20) {
            server.notify("textDocument/didSave", json!({ "textDocument": { "uri": uri } }));
            last_save = Instant::now();
        }
    }
    let finding = finding.unwrap();
    // `let first = host[0];` is line 5 (0-based), the access `host[0]` from column 16.
    assert_eq!(
        finding["range"]["start"],
        json!({ "line": 5, "character": 16 }),
        "{finding}"
    );

    let actions = server.request(
        "textDocument/codeAction",
        json!({
            "textDocument": { "uri": uri },
            "range": finding["range"],
            "context": { "diagnostics": [finding] },
        }),
        &mut seen,
        deadline,
    );
    let titles: Vec<String> = actions["result"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a["title"].as_str().map(str::to_string))
        .collect();
    let fix = titles
        .iter()
        .find(|t| t.starts_with("wait for the asynchronous copy"))
        .unwrap_or_else(|| panic!("no quick fix offered at the finding: {titles:?}"));
    assert!(!fix.contains('\n'), "the quick fix's title has a line break: {fix:?}");
    assert!(fix.contains("s.synchronize()?; let first = host[0]"), "{fix}");
}
