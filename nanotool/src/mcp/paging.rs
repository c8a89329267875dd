//! `tools/list` paging: the opaque cursor, bound to the tool set it pages through (a cursor
//! from another tool set is refused), and the page it names. Pure functions.

use std::sync::Arc;

use nanotool_runtime::Tool;
use serde_json::Value;

use super::wire::{ErrorCode, RpcError};

/// A fingerprint of a tool set: FNV-1a over the names, in order.
pub(super) fn fingerprint(tools: &[Arc<dyn Tool>]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for tool in tools {
        for b in tool.name().bytes().chain(std::iter::once(0)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// The cursor of the page starting at `offset` of the tool set `fingerprint` names.
pub(super) fn encode_cursor(offset: usize, fingerprint: u64) -> String {
    format!("nt1.{offset:x}.{fingerprint:016x}")
}

/// Where `cursor` starts, if it is a cursor of the tool set `fingerprint` names.
pub(super) fn decode_cursor(cursor: &str, fingerprint: u64) -> Option<usize> {
    let rest = cursor.strip_prefix("nt1.")?;
    let (offset, fp) = rest.split_once('.')?;
    if u64::from_str_radix(fp, 16).ok()? != fingerprint || fp.len() != 16 {
        return None;
    }
    usize::from_str_radix(offset, 16).ok()
}

/// One page of `tools/list`: the range of the `len` tools it holds, and the cursor of the
/// next page, if there is one.
pub(super) fn page(
    cursor: Option<&Value>,
    len: usize,
    page_size: usize,
    fingerprint: u64,
) -> Result<(std::ops::Range<usize>, Option<String>), RpcError> {
    let start = match cursor {
        None | Some(Value::Null) => 0,
        Some(Value::String(c)) => decode_cursor(c, fingerprint)
            .filter(|&offset| offset > 0 && offset < len)
            .ok_or_else(|| bad_cursor(c))?,
        Some(other) => return Err(bad_cursor(&other.to_string())),
    };
    let end = (start + page_size.max(1)).min(len);
    let next = (end < len).then(|| encode_cursor(end, fingerprint));
    Ok((start..end, next))
}

fn bad_cursor(cursor: &str) -> RpcError {
    RpcError::new(
        ErrorCode::INVALID_PARAMS,
        format!(
            "invalid cursor {cursor:?}: pass back the nextCursor of the previous tools/list result unchanged, or leave cursor out to start from the first tool"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::{decode_cursor, encode_cursor, page};
    use serde_json::Value;

    #[test]
    fn cursors_round_trip_and_refuse_other_tool_sets() {
        let c = encode_cursor(7, 42);
        assert_eq!(decode_cursor(&c, 42), Some(7));
        assert_eq!(decode_cursor(&c, 43), None);
        assert_eq!(decode_cursor("garbage", 42), None);
    }

    #[test]
    fn pages_cover_the_list_once() {
        let (first, next) = page(None, 5, 2, 9).unwrap();
        assert_eq!(first, 0..2);
        let next = Value::from(next.unwrap());
        let (second, _) = page(Some(&next), 5, 2, 9).unwrap();
        assert_eq!(second, 2..4);
        assert!(page(Some(&next), 5, 2, 10).is_err());
        assert!(page(Some(&Value::from(3)), 5, 2, 9).is_err());
    }
}
