//! The gitlinks an index file records (versions 2 to 4), read as a stream, and the shared
//! index a split index names.

use std::io::{BufRead, Read};

/// An index read as a stream, through a buffer: a gitlink's path is copied, every other
/// entry skipped, so a reading costs a few loads per entry and a buffer's worth of memory
/// however large the index.
struct IndexStream<R> {
    input: std::io::BufReader<R>,
    pos: u64,
}

impl<R: Read> IndexStream<R> {
    fn exact<const N: usize>(&mut self) -> Result<[u8; N], &'static str> {
        let mut out = [0u8; N];
        self.input.read_exact(&mut out).map_err(|_| "cut short")?;
        self.pos += N as u64;
        Ok(out)
    }

    fn bytes(&mut self, n: usize, out: &mut Vec<u8>) -> Result<(), &'static str> {
        let start = out.len();
        out.resize(start + n, 0);
        self.input
            .read_exact(&mut out[start..])
            .map_err(|_| "cut short")?;
        self.pos += n as u64;
        Ok(())
    }

    fn skip(&mut self, mut n: u64) -> Result<(), &'static str> {
        while n > 0 {
            let buf = self.input.fill_buf().map_err(|_| "cut short")?;
            if buf.is_empty() {
                return Err("cut short");
            }
            let take = buf.len().min(usize::try_from(n).unwrap_or(usize::MAX));
            self.input.consume(take);
            n -= take as u64;
            self.pos += take as u64;
        }
        Ok(())
    }

    /// The bytes up to the next NUL (consumed, not kept), appended to `out`.
    fn until_nul(&mut self, out: &mut Vec<u8>) -> Result<(), &'static str> {
        let n = self.input.read_until(0, out).map_err(|_| "cut short")?;
        if out.last() != Some(&0) {
            return Err("cut short");
        }
        out.pop();
        self.pos += n as u64;
        Ok(())
    }
}

/// The gitlink paths of an index (versions 2 to 4) of `len` bytes, and the shared index it
/// names, if split.
pub(super) fn parse_index<R: Read>(
    input: R,
    len: u64,
    hash_len: usize,
) -> Result<(Vec<Vec<u8>>, Option<String>), &'static str> {
    let mut s = IndexStream {
        input: std::io::BufReader::with_capacity(256 * 1024, input),
        pos: 0,
    };
    let header: [u8; 12] = s.exact()?;
    if &header[..4] != b"DIRC" {
        return Err("no index signature");
    }
    let version = u32::from_be_bytes([header[4], header[5], header[6], header[7]]);
    if !(2..=4).contains(&version) {
        return Err("an index version git does not write");
    }
    let count = u32::from_be_bytes([header[8], header[9], header[10], header[11]]);
    let mut links = Vec::new();
    // Version 4 names the next path by what it keeps of the one before.
    let mut previous: Vec<u8> = Vec::new();
    for _ in 0..count {
        let start = s.pos;
        // ctime, mtime, dev, ino, mode, uid, gid, size: 40 bytes; then the hash and flags.
        let fixed: [u8; 40] = s.exact()?;
        let mode = u32::from_be_bytes([fixed[24], fixed[25], fixed[26], fixed[27]]);
        let is_link = mode & 0o170000 == 0o160000;
        s.skip(hash_len as u64)?;
        let flags: [u8; 2] = s.exact()?;
        let flags = u16::from_be_bytes(flags);
        if flags & 0x4000 != 0 {
            if version < 3 {
                return Err("extended flags in a version 2 index");
            }
            s.skip(2)?;
        }
        if version == 4 {
            let strip = s.varint()?;
            let keep = previous
                .len()
                .checked_sub(usize::try_from(strip).map_err(|_| "cut short")?)
                .ok_or("a name prefix longer than the name before it")?;
            previous.truncate(keep);
            s.until_nul(&mut previous)?;
            if is_link {
                links.push(previous.clone());
            }
        } else {
            // git reads the name's length from the flags, below 0xFFF, else up to the NUL.
            let name_at = s.pos;
            let name_len = match usize::from(flags & 0x0fff) {
                0x0fff => {
                    let mut name = Vec::new();
                    // Its NUL is read too: the padding's first byte.
                    s.until_nul(&mut name)?;
                    let len = name.len() as u64;
                    if is_link {
                        links.push(name);
                    }
                    len
                }
                len if is_link => {
                    let mut name = Vec::with_capacity(len);
                    s.bytes(len, &mut name)?;
                    links.push(name);
                    len as u64
                }
                len => {
                    s.skip(len as u64)?;
                    len as u64
                }
            };
            // The entry is padded with 1 to 8 NULs to a multiple of 8 bytes.
            let size = (name_at - start + name_len + 8) & !7;
            s.skip(start + size - s.pos)?;
        }
    }
    // Extensions, before the trailing checksum: only `link` (a split index) matters.
    let mut shared = None;
    while s.pos + 8 + hash_len as u64 <= len {
        let head: [u8; 8] = s.exact()?;
        let size = u64::from(u32::from_be_bytes([head[4], head[5], head[6], head[7]]));
        if &head[..4] == b"link" {
            let mut id = Vec::new();
            s.bytes(hash_len, &mut id)?;
            if id.iter().any(|&b| b != 0) {
                shared = Some(id.iter().map(|b| format!("{b:02x}")).collect());
            }
            s.skip(size.checked_sub(hash_len as u64).ok_or("cut short")?)?;
        } else {
            s.skip(size)?;
        }
    }
    Ok((links, shared))
}

impl<R: Read> IndexStream<R> {
    /// git's offset varint (`decode_varint`).
    fn varint(&mut self) -> Result<u64, &'static str> {
        let [mut c] = self.exact::<1>()?;
        let mut value = u64::from(c & 127);
        while c & 128 != 0 {
            value = value.checked_add(1).ok_or("cut short")?;
            if value >> 57 != 0 {
                return Err("a name prefix longer than the name before it");
            }
            [c] = self.exact::<1>()?;
            value = (value << 7) + u64::from(c & 127);
        }
        Ok(value)
    }
}
