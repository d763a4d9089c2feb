//! The user's own functions: the effect summaries they write (`#[cuda_lint::..]` attributes, and
//! `cuda-lint.toml`'s `[[functions]]`), in the grammar of `cuda_lint_protocol::summary`, turned
//! into the tables' [`Effect`]s. They come before the tables: they describe wrappers, and may
//! correct a table.

use cuda_lint_protocol::config::Config;
use cuda_lint_protocol::summary::{CopyDir, Summary};

use super::{Dir, Effect, Target};

/// Effects of the user's functions, by definition path (from `cuda-lint.toml`).
pub type UserFunctions = std::collections::BTreeMap<String, Vec<Effect>>;

/// What the driver takes from `cuda-lint.toml`, read once: the function table and what the
/// lints are told (`[perf]`).
#[derive(Debug, Default)]
pub struct UserConfig {
    pub functions: UserFunctions,
    pub options: cuda_lint_machine::Options,
}

/// The driver's part of a configuration.
pub fn user_config_of(config: &Config) -> UserConfig {
    UserConfig {
        functions: functions_of(config),
        options: config.options.clone(),
    }
}

/// The effect a summary stands for. Launch lists and kernel names are leaked: a summary is read
/// once per function and lives as long as the compiler session.
pub fn effect_of(summary: &Summary) -> Effect {
    match summary {
        Summary::SyncStream(a) => Effect::SyncStream(*a),
        Summary::SyncAll => Effect::SyncContext,
        Summary::Copy { dst, src, stream, dir } => Effect::Copy {
            dst: *dst,
            src: *src,
            dir: match dir {
                CopyDir::Infer => Dir::Infer,
                CopyDir::HostToDevice => Dir::HostToDevice,
                CopyDir::DeviceToHost => Dir::DeviceToHost,
                CopyDir::DeviceToDevice => Dir::DeviceToDevice,
            },
            stream: *stream,
            is_async: true,
        },
        Summary::Launch {
            stream,
            reads,
            writes,
            kernel,
            fenced,
        } => Effect::Work {
            stream: *stream,
            reads: Box::leak(reads.clone().into_boxed_slice()),
            writes: Box::leak(writes.clone().into_boxed_slice()),
            kernel: kernel.as_ref().map(|k| &*Box::leak(k.clone().into_boxed_str())),
            fenced: *fenced,
        },
        Summary::Returns(kind) => Effect::New(Target::Mem(*kind)),
    }
}

/// The function table of a configuration.
pub fn functions_of(config: &Config) -> UserFunctions {
    config
        .functions
        .iter()
        .map(|(path, summaries)| (path.clone(), summaries.iter().map(effect_of).collect()))
        .collect()
}
