//! Path confinement: the rule every form applies to a value that names a file. A path is
//! read lexically (`a/./b/../c` is `a/c`; empty, absolute and escaping paths are refused), an
//! absolute path inside the working directory is made relative, the longest existing prefix
//! is resolved through symbolic links and must stay inside the working directory (and out of
//! `/proc`, `/dev` and `/sys`), and the value is rendered `./relative` (or `.`) so it never
//! reads as an option or a remote name. [`crate::spec`] applies it to a whole token a path
//! shares, and [`crate::exec_tool`] to every piece of a free-text argument; the rule is
//! functions over a text and the working directory ([`check`], [`confine`], [`lexical`]), which
//! a slot wraps in its own error and ExecTool in its own refusal.

use super::{SlotError, SlotSpec, shown};
use std::path::Path;
use std::path::{Component, PathBuf};

impl SlotSpec {
    /// [`refuse_dash`], as an error about this slot.
    pub(crate) fn check_path_dash(&self, text: &str) -> Result<(), SlotError> {
        refuse_dash(text).map_err(|reason| self.error(reason))
    }

    /// [`confine`], as an error about this slot.
    pub(crate) fn confine_path(&self, text: &str, root: &Path) -> Result<String, SlotError> {
        confine(text, root).map_err(|reason| self.error(reason))
    }

    /// [`lexical`], as an error about this slot.
    pub(crate) fn lexical_path(&self, text: &str) -> Result<Vec<String>, SlotError> {
        lexical(text).map_err(|reason| self.error(reason))
    }
}

/// The path rule for one value that names a file, whoever holds it: a slot's value
/// ([`super::validate`]) or a piece of a free-text argument ([`crate::exec_tool`]). The value
/// may not begin with `-` ([`refuse_dash`]) and must stay inside `root`, the working directory
/// ([`confine`]); returns it rendered `./relative` (or `.`). `Err` holds the reason, which
/// the caller puts in its own error.
pub(crate) fn check(text: &str, root: &Path) -> Result<String, String> {
    refuse_dash(text)?;
    confine(text, root)
}

/// A path value may not begin with `-` at all.
pub(crate) fn refuse_dash(text: &str) -> Result<(), String> {
    if text.starts_with('-') {
        Err(format!(
            "`{}` begins with `-`, and a path may not (it would be read as an option); to name a \
             file whose name begins with `-`, write `./{}`",
            shown(text),
            shown(text)
        ))
    } else {
        Ok(())
    }
}

/// Path confinement: renders `text` as `./relative` (or `.`), refusing anything that is
/// absolute, empty, leaves `root` through `..` or a symlink, or resolves into `/proc`,
/// `/dev` or `/sys`. `root` is the working directory.
pub(crate) fn confine(text: &str, root: &Path) -> Result<String, String> {
    let given_root = root;
    let root = root.canonicalize().map_err(|e| {
        format!(
            "the working directory `{}` cannot be resolved ({e}); the host must give an \
             existing directory",
            root.display()
        )
    })?;
    let relative;
    let text = if text.starts_with('/') {
        relative = relative_inside(text, given_root, &root)?;
        relative.as_str()
    } else {
        text
    };
    let components = lexical(text)?;
    // The longest prefix that exists (without following a final symlink) is resolved;
    // the rest does not exist yet, so it cannot be a symlink.
    let mut existing = root.clone();
    for component in &components {
        let next = existing.join(component);
        if std::fs::symlink_metadata(&next).is_err() {
            break;
        }
        existing = next;
    }
    let resolved = existing.canonicalize().map_err(|_| {
        format!(
            "`{}` goes through a symlink that cannot be resolved; write a path to a real file \
             or directory inside the working directory",
            shown(text)
        )
    })?;
    if !resolved.starts_with(&root) {
        return Err(format!(
            "`{}` leads outside the working directory through a symlink; write a path whose \
             target is inside the working directory",
            shown(text)
        ));
    }
    for system in ["/proc", "/dev", "/sys"] {
        if resolved.starts_with(system) {
            return Err(format!(
                "`{}` resolves into `{system}`, which tools may not touch; write a path to a \
                 workspace file",
                shown(text)
            ));
        }
    }
    Ok(render_components(&components))
}

/// An absolute path value, made relative to the working directory: models copy paths
/// from tracebacks and compiler errors. `..` is applied lexically (as it is to a relative
/// value, and as the rendered argument will read); the path must then lie under the
/// working directory as given or as resolved, or its longest existing prefix must
/// resolve there (a working directory reached through a symlink). Anything else is
/// outside and refused.
fn relative_inside(text: &str, given_root: &Path, root: &Path) -> Result<String, String> {
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for component in Path::new(text).components() {
        match component {
            Component::Normal(part) => parts.push(part),
            Component::ParentDir => {
                parts.pop();
            }
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    let mut absolute = PathBuf::from("/");
    absolute.extend(&parts);
    let under = |base: &Path| -> Option<PathBuf> {
        absolute.strip_prefix(base).ok().map(Path::to_path_buf)
    };
    let inside = under(given_root).or_else(|| under(root)).or_else(|| {
        // The longest existing prefix, resolved, with the rest (which cannot be a
        // symlink: it does not exist) put back.
        let mut existing = absolute.clone();
        let mut rest = Vec::new();
        while std::fs::symlink_metadata(&existing).is_err() {
            rest.push(existing.file_name()?.to_owned());
            existing.pop();
        }
        let mut resolved = existing.canonicalize().ok()?;
        resolved.extend(rest.iter().rev());
        resolved.strip_prefix(root).ok().map(Path::to_path_buf)
    });
    match inside {
        Some(inside) if inside.as_os_str().is_empty() => Ok(".".to_owned()),
        Some(inside) => Ok(inside.to_string_lossy().into_owned()),
        None => Err(format!(
            "`{}` is outside the working directory, and tools may only touch files inside it; \
             write a path inside it, relative to it, e.g. `src/main.rs`",
            shown(text)
        )),
    }
}

/// Splits a path value lexically (`a/./b/../c` → `a`, `c`), refusing empty, absolute and
/// escaping paths.
pub(crate) fn lexical(text: &str) -> Result<Vec<String>, String> {
    if text.is_empty() {
        return Err(
            "the path is empty; write `.` for the working directory, or a relative \
                    path such as `src/main.rs`"
                .to_owned(),
        );
    }
    if text.starts_with('/') {
        return Err(format!(
            "`{}` is absolute, and a default cannot know where the working directory will be; \
             write it relative to the working directory, e.g. `src/main.rs`",
            shown(text)
        ));
    }
    let mut components: Vec<String> = Vec::new();
    for component in Path::new(text).components() {
        match component {
            Component::Normal(part) => components.push(part.to_string_lossy().into_owned()),
            Component::CurDir => {}
            Component::ParentDir => {
                if components.pop().is_none() {
                    return Err(format!(
                        "`{}` leaves the working directory through `..`; write a path inside it, \
                         relative to it, e.g. `src/main.rs`",
                        shown(text)
                    ));
                }
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(format!(
                    "`{}` is absolute; write a path relative to the working directory, e.g. \
                     `src/main.rs`",
                    shown(text)
                ));
            }
        }
    }
    Ok(components)
}

/// `./a/b`, or `.` for the working directory itself.
pub(crate) fn render_components(components: &[String]) -> String {
    if components.is_empty() {
        ".".to_owned()
    } else {
        let mut out = PathBuf::from(".");
        out.extend(components);
        out.to_string_lossy().into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_paths() {
        let r = |t: &str| lexical(t).map(|c| render_components(&c));
        assert_eq!(r(".").unwrap(), ".");
        assert_eq!(r("./").unwrap(), ".");
        assert_eq!(r("a/../b").unwrap(), "./b");
        assert_eq!(r("a//b/./c/").unwrap(), "./a/b/c");
        assert!(r("").is_err());
        assert!(r("/etc").is_err());
        assert!(r("..").is_err());
        assert!(r("a/../../x").is_err());
    }
}
