//! A tiny assembler for classic BPF, the language of the filter: instructions with symbolic
//! jump targets resolved at the end, and the shared `ret`s that end the rules' bodies.

use std::io;

// Classic BPF opcodes (linux/filter.h).
pub(super) const LD_W_ABS: u16 = 0x20;
pub(super) const JA: u16 = 0x05;
pub(super) const JEQ_K: u16 = 0x15;
pub(super) const JGE_K: u16 = 0x35;
pub(super) const AND_K: u16 = 0x54;
pub(super) const JSET_K: u16 = 0x45;
pub(super) const RET_K: u16 = 0x06;

/// A jump target in the program being assembled.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Target {
    Next,
    Label(usize),
}

#[derive(Clone, Copy)]
enum Cond {
    Eq,
    Ge,
    Set,
}

enum Insn {
    Ld(u32),
    And(u32),
    Jump(Cond, u32, Target, Target),
    Ja(usize),
    Ret(u32),
    Label(usize),
}

/// A tiny assembler: instructions with symbolic jump targets, resolved at the end. A
/// conditional jump reaches at most 255 instructions ahead; a farther target goes through an
/// unconditional jump placed right after it (`finish`).
#[derive(Default)]
pub(super) struct Asm {
    insns: Vec<Insn>,
    labels: usize,
}

impl Asm {
    pub(super) fn label(&mut self) -> usize {
        self.labels += 1;
        self.labels - 1
    }
    pub(super) fn ld(&mut self, off: u32) {
        self.insns.push(Insn::Ld(off));
    }
    pub(super) fn and(&mut self, mask: u32) {
        self.insns.push(Insn::And(mask));
    }
    pub(super) fn jeq(&mut self, k: u32, t: Target, f: Target) {
        self.insns.push(Insn::Jump(Cond::Eq, k, t, f));
    }
    pub(super) fn jge(&mut self, k: u32, t: Target, f: Target) {
        self.insns.push(Insn::Jump(Cond::Ge, k, t, f));
    }
    pub(super) fn jset(&mut self, k: u32, t: Target, f: Target) {
        self.insns.push(Insn::Jump(Cond::Set, k, t, f));
    }
    pub(super) fn ret(&mut self, k: u32) {
        self.insns.push(Insn::Ret(k));
    }
    pub(super) fn place(&mut self, label: usize) {
        self.insns.push(Insn::Label(label));
    }

    /// Positions of the labels in the final program.
    fn positions(&self) -> Vec<usize> {
        let mut at = vec![usize::MAX; self.labels];
        let mut pc = 0;
        for insn in &self.insns {
            match insn {
                Insn::Label(l) => at[*l] = pc,
                _ => pc += 1,
            }
        }
        at
    }

    pub(super) fn finish(mut self) -> io::Result<Vec<libc::sock_filter>> {
        // Every `Next` of a conditional jump becomes a label, so instructions can be placed
        // after the jump without moving its fall-through.
        let insns = std::mem::take(&mut self.insns);
        for insn in insns {
            match insn {
                Insn::Jump(c, k, t, f) if t == Target::Next || f == Target::Next => {
                    let next = self.label();
                    let fix = |x: Target| match x {
                        Target::Next => Target::Label(next),
                        other => other,
                    };
                    self.insns.push(Insn::Jump(c, k, fix(t), fix(f)));
                    self.insns.push(Insn::Label(next));
                }
                other => self.insns.push(other),
            }
        }
        // Relax: a conditional jump too far for its 8-bit offset goes through a `ja` right
        // after it. Each pass fixes one jump (inserting moves the others), until none is far.
        loop {
            let at = self.positions();
            let mut pc = 0;
            let mut far = None;
            for (i, insn) in self.insns.iter().enumerate() {
                match insn {
                    Insn::Label(_) => continue,
                    Insn::Jump(_, _, t, f) => {
                        let too_far = |x: &Target| match x {
                            Target::Label(l) => {
                                at[*l].saturating_sub(pc + 1) > usize::from(u8::MAX)
                            }
                            Target::Next => false,
                        };
                        if too_far(t) || too_far(f) {
                            far = Some((i, too_far(t), too_far(f)));
                            break;
                        }
                    }
                    _ => {}
                }
                pc += 1;
            }
            let Some((i, t_far, f_far)) = far else { break };
            let Insn::Jump(c, k, t, f) = self.insns[i] else {
                unreachable!("only jumps are relaxed")
            };
            let mut inserted = Vec::new();
            let mut via = |x: Target, is_far: bool, this: &mut Asm| -> Target {
                match x {
                    Target::Label(l) if is_far => {
                        let tramp = this.label();
                        inserted.push(Insn::Label(tramp));
                        inserted.push(Insn::Ja(l));
                        Target::Label(tramp)
                    }
                    other => other,
                }
            };
            let t = via(t, t_far, &mut self);
            let f = via(f, f_far, &mut self);
            // The jump's own fall-through label comes right after the trampolines' `ja`s,
            // which nothing falls into: the jump always jumps.
            self.insns[i] = Insn::Jump(c, k, t, f);
            let after = i + 1;
            for (n, insn) in inserted.into_iter().enumerate() {
                self.insns.insert(after + n, insn);
            }
        }
        let at = self.positions();
        let mut out = Vec::with_capacity(self.insns.len());
        for insn in &self.insns {
            let here = out.len();
            let offset = |t: &Target| -> io::Result<usize> {
                match t {
                    Target::Next => Ok(0),
                    Target::Label(l) => at[*l].checked_sub(here + 1).ok_or_else(|| {
                        io::Error::new(io::ErrorKind::InvalidInput, "seccomp jump backwards")
                    }),
                }
            };
            let short = |t: &Target| -> io::Result<u8> {
                u8::try_from(offset(t)?).map_err(|_| {
                    io::Error::new(io::ErrorKind::InvalidInput, "seccomp jump too long")
                })
            };
            let f = |code, jt, jf, k| libc::sock_filter { code, jt, jf, k };
            match insn {
                Insn::Label(_) => {}
                Insn::Ld(off) => out.push(f(LD_W_ABS, 0, 0, *off)),
                Insn::And(m) => out.push(f(AND_K, 0, 0, *m)),
                Insn::Jump(c, k, t, e) => {
                    let code = match c {
                        Cond::Eq => JEQ_K,
                        Cond::Ge => JGE_K,
                        Cond::Set => JSET_K,
                    };
                    out.push(f(code, short(t)?, short(e)?, *k));
                }
                Insn::Ja(l) => {
                    let k = u32::try_from(offset(&Target::Label(*l))?).map_err(|_| {
                        io::Error::new(io::ErrorKind::InvalidInput, "seccomp program too long")
                    })?;
                    out.push(f(JA, 0, 0, k));
                }
                Insn::Ret(k) => out.push(f(RET_K, 0, 0, *k)),
            }
        }
        Ok(out)
    }
}

/// Instructions that end a body: a label per answer, each placed once at the end of the
/// program, so that every rule jumps to a shared `ret` instead of carrying its own.
#[derive(Default)]
pub(super) struct Rets {
    labels: Vec<(u32, usize)>,
}

impl Rets {
    pub(super) fn label(&mut self, a: &mut Asm, answer: u32) -> Target {
        if let Some((_, l)) = self.labels.iter().find(|(k, _)| *k == answer) {
            return Target::Label(*l);
        }
        let l = a.label();
        self.labels.push((answer, l));
        Target::Label(l)
    }

    pub(super) fn place(self, a: &mut Asm) {
        for (answer, label) in self.labels {
            a.place(label);
            a.ret(answer);
        }
    }
}
