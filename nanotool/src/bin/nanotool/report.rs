//! What a command reports on its way out: a [`Failure`] with its exit status, and output
//! written to stdout (a closed stdout is not an error).

use std::io::{self, Write};

use serde_json::Value;

/// A failure of the command itself, with its exit status.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) status: u8,
    pub(crate) message: String,
}

impl Failure {
    pub(crate) fn cannot_run(message: impl Into<String>) -> Self {
        Failure {
            status: 1,
            message: message.into(),
        }
    }

    pub(crate) fn refused(message: impl Into<String>) -> Self {
        Failure {
            status: 2,
            message: message.into(),
        }
    }
}

pub(crate) fn print_json(value: &Value) -> Result<u8, Failure> {
    let text = serde_json::to_string_pretty(value).expect("a JSON value always serialises");
    write_stdout(&text)?;
    Ok(0)
}

pub(crate) fn write_stdout(text: &str) -> Result<(), Failure> {
    let mut out = io::stdout().lock();
    let result = if text.ends_with('\n') {
        out.write_all(text.as_bytes())
    } else {
        writeln!(out, "{text}")
    };
    result
        .and_then(|()| out.flush())
        .or_else(|e| {
            if e.kind() == io::ErrorKind::BrokenPipe {
                Ok(())
            } else {
                Err(e)
            }
        })
        .map_err(|e| Failure::cannot_run(format!("cannot write to stdout: {e}")))
}
