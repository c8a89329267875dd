//! Argument and environment strings as C strings, each checked once for a NUL byte: what
//! both backends' `CStrings` (argv and environment blocks) are made of.

use std::ffi::{CString, OsString};
use std::io;
use std::os::unix::ffi::OsStrExt;

/// From byte strings; one holding a NUL byte is an error naming it.
pub(crate) fn c_strings<I, B>(items: I) -> io::Result<Vec<CString>>
where
    I: IntoIterator<Item = B>,
    B: Into<Vec<u8>>,
{
    items
        .into_iter()
        .map(|b| {
            CString::new(b).map_err(|e| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "`{}` contains a NUL byte",
                        String::from_utf8_lossy(&e.into_vec())
                    ),
                )
            })
        })
        .collect()
}

/// An environment block's entries: `KEY=VALUE` byte strings.
pub(crate) fn env_entries(vars: &[(OsString, OsString)]) -> impl Iterator<Item = Vec<u8>> + '_ {
    vars.iter().map(|(k, v)| {
        let mut kv = k.as_bytes().to_vec();
        kv.push(b'=');
        kv.extend_from_slice(v.as_bytes());
        kv
    })
}
