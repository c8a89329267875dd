//! `*.tool.json` descriptors and their loader (DESIGN §7, error 613).
//!
//! STUB — being written.

use thiserror::Error;

/// A descriptor file that could not be loaded (error 613).
#[derive(Debug, Error)]
#[error("{file}: {message}")]
pub struct DescriptorError {
    /// The file at fault.
    pub file: std::path::PathBuf,
    /// What is wrong and what to write instead.
    pub message: String,
}

/// Loads every `*.tool.json` in a folder.
#[derive(Debug, Default)]
pub struct DescriptorLoader {}
