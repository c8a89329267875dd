//! Reading one option token the way the binary's own parser would: bundles of short options,
//! long options and their GNU abbreviations, attached and separate values, old-style
//! bundles (`tar xIf zstd a.tar`), and what the option's role makes of its value.

use super::tables::{Arity, Opt, Role};
use super::{Cx, HitKind, Item, Place, Scanner, Site, Step, Word};
use std::ops::Range;

impl Scanner<'_> {
    /// One option token (and the value it takes from the next token, if any).
    pub(super) fn option(&mut self, cx: &Cx, opts: &[&[Opt]], words: &[Word], i: usize) -> Step {
        let word = &words[i];
        let prefix = word.lit_prefix();
        if cx.entry.plus_code && prefix.starts_with('+') {
            self.push(
                cx,
                HitKind::Code,
                Site::At(Place::PlusCommand),
                "a command the program runs at start",
                word.slots.clone(),
                std::slice::from_ref(word),
            );
            return Step {
                consumed: 1,
                ..Step::default()
            };
        }
        let items = &word.items;
        let eq = items.iter().position(|item| *item == Item::Ch('='));
        let name_end = eq.unwrap_or(items.len());
        let name_has_slot = items[..name_end]
            .iter()
            .any(|item| matches!(item, Item::Slot(_)));
        let attached_after_eq = eq.map(|e| &items[e + 1..]);

        // `-javaagent:x`, `-TTcmd`: a word that takes the rest of the token.
        if let Some(opt) = attached_word(opts, &prefix, items.len(), cx.entry.long_only) {
            let rest = &items[opt.name.chars().count()..];
            let rest = rest.strip_prefix(&[Item::Ch('=')]).unwrap_or(rest);
            return self.apply(cx, opt, Some(rest).filter(|r| !r.is_empty()), words, i);
        }

        if prefix.starts_with("--") || cx.entry.long_only || word_len(&prefix, name_end) > 2 {
            if !name_has_slot {
                let name: String = items[..name_end]
                    .iter()
                    .filter_map(|item| match item {
                        Item::Ch(c) => Some(*c),
                        Item::Slot(_) => None,
                    })
                    .collect();
                let abbreviations = prefix.starts_with("--") || cx.entry.long_only;
                if let Some(opt) = lookup_word(opts, &name, abbreviations) {
                    return self.apply(cx, opt, attached_after_eq, words, i);
                }
            }
            if prefix.starts_with("--") || cx.entry.long_only {
                if name_has_slot {
                    return self.option_choice(
                        cx,
                        "the choice of option",
                        word.slots.clone(),
                        word,
                    );
                }
                return Step {
                    consumed: 1,
                    ambiguous: eq.is_none(),
                    ..Step::default()
                };
            }
        }

        // A bundle of short flags: `-Ic`, `-le`, `-cCODE`, `-W ignore`.
        let mut code = false;
        let mut last_unknown = false;
        let mut pending: Option<&Opt> = None;
        let mut k = 1;
        while k < items.len() {
            match items[k] {
                Item::Slot(_) => {
                    return self.option_choice(
                        cx,
                        "the choice of option letters",
                        word.slots_in(&items[k..]),
                        word,
                    );
                }
                Item::Ch(c) => match lookup_short(opts, c) {
                    None => {
                        last_unknown = true;
                        k += 1;
                    }
                    Some(opt) if opt.arity == Arity::Flag => {
                        code |= self.role_hit(cx, opt, None, std::slice::from_ref(word));
                        last_unknown = false;
                        k += 1;
                    }
                    Some(opt) if opt.arity == Arity::Digits => {
                        last_unknown = false;
                        k += 1;
                        let is = |k: usize, f: fn(char) -> bool| matches!(items.get(k), Some(Item::Ch(c)) if f(*c));
                        if opt.name == "-0" && is(k, |c| c == 'x') {
                            k += 1;
                            while is(k, |c| c.is_ascii_hexdigit()) {
                                k += 1;
                            }
                        }
                        while is(k, |c| ('0'..='7').contains(&c)) {
                            k += 1;
                        }
                    }
                    Some(opt)
                        if !cx.entry.attached_values
                            && matches!(opt.arity, Arity::Next | Arity::Command) =>
                    {
                        // `node -pe CODE`: the bundle is flags; the value comes next.
                        self.role_hit(cx, opt, None, std::slice::from_ref(word));
                        pending = Some(opt);
                        last_unknown = false;
                        k += 1;
                    }
                    Some(opt) => {
                        let rest = &items[k + 1..];
                        let mut step =
                            self.apply(cx, opt, Some(rest).filter(|r| !r.is_empty()), words, i);
                        step.code |= code;
                        return step;
                    }
                },
            }
        }
        if let Some(opt) = pending {
            // Drop the flag-only hit just recorded for it: the value comes with it now.
            if self
                .hits
                .last()
                .is_some_and(|h| h.site == Site::ValueOf(opt.name) && h.slots.is_empty())
            {
                self.hits.pop();
            }
            let mut step = self.apply(cx, opt, None, words, i);
            step.code |= code;
            return step;
        }
        Step {
            consumed: 1,
            code,
            ambiguous: last_unknown,
            ..Step::default()
        }
    }

    /// A slot chooses the option itself (`-<flags>`, `--<opt>`, `tar <letters>`): a site,
    /// and what follows may be the value of the option it chooses.
    fn option_choice(
        &mut self,
        cx: &Cx,
        why: &'static str,
        slots: Vec<(String, Range<usize>)>,
        word: &Word,
    ) -> Step {
        self.push(
            cx,
            HitKind::Code,
            Site::At(Place::OptionName),
            why,
            slots,
            std::slice::from_ref(word),
        );
        Step {
            consumed: 1,
            choice: true,
            ..Step::default()
        }
    }

    /// Old-style `tar xIf zstd a.tar`: letters whose values follow in order.
    pub(super) fn old_bundle(
        &mut self,
        cx: &Cx,
        opts: &[&[Opt]],
        words: &[Word],
        i: usize,
    ) -> Step {
        let word = &words[i];
        if !word.slots.is_empty() {
            return self.option_choice(
                cx,
                "the choice of option letters (a first argument without a dash is options)",
                word.slots.clone(),
                word,
            );
        }
        let mut values = 0;
        let mut code = false;
        for c in word.literal().unwrap_or_default().chars() {
            let Some(opt) = lookup_short(opts, c) else {
                continue;
            };
            if matches!(opt.arity, Arity::Next | Arity::Command) {
                values += 1;
                let value = words.get(i + values);
                let shown: Vec<Word> = std::iter::once(word.clone())
                    .chain(value.cloned())
                    .collect();
                code |= self.role_hit(cx, opt, value.map(|v| (v, &v.items[..])), &shown);
            } else {
                code |= self.role_hit(cx, opt, None, std::slice::from_ref(word));
            }
        }
        Step {
            consumed: (1 + values).min(words.len() - i),
            code,
            ..Step::default()
        }
    }

    /// Records a Code, Effect or Remote option, given its value (the word holding it and the
    /// value's items); returns whether it gave the program (code, or a syntax check's file).
    pub(super) fn role_hit(
        &mut self,
        cx: &Cx,
        opt: &Opt,
        value: Option<(&Word, &[Item])>,
        shown: &[Word],
    ) -> bool {
        match opt.role {
            Role::Plain => false,
            Role::Check => true,
            Role::Code | Role::Load => {
                let slots = value
                    .map(|(w, items)| w.slots_in(items))
                    .unwrap_or_default();
                self.push(
                    cx,
                    HitKind::Code,
                    Site::ValueOf(opt.name),
                    opt.why,
                    slots,
                    shown,
                );
                opt.role == Role::Code
            }
            Role::Effect => {
                self.push(
                    cx,
                    HitKind::Effect,
                    Site::ValueOf(opt.name),
                    opt.why,
                    Vec::new(),
                    shown,
                );
                false
            }
            Role::Remote => {
                if let Some(value) = value {
                    self.remote(cx, Site::ValueOf(opt.name), opt.why, value, shown);
                }
                false
            }
        }
    }

    /// Applies a recognised option: takes its value (attached or the next token).
    pub(super) fn apply(
        &mut self,
        cx: &Cx,
        opt: &Opt,
        attached: Option<&[Item]>,
        words: &[Word],
        i: usize,
    ) -> Step {
        let word = &words[i];
        match opt.arity {
            Arity::Flag | Arity::Attached | Arity::Digits => {
                let value = attached.map(|a| (word, a));
                let code = self.role_hit(cx, opt, value, std::slice::from_ref(word));
                Step {
                    consumed: 1,
                    code,
                    ..Step::default()
                }
            }
            Arity::Next => match (attached, words.get(i + 1)) {
                (Some(a), _) => {
                    let code = self.role_hit(cx, opt, Some((word, a)), std::slice::from_ref(word));
                    Step {
                        consumed: 1,
                        code,
                        ..Step::default()
                    }
                }
                (None, Some(next)) => {
                    if word.literal().is_some() && cx.entry.hyphen_values {
                        self.not_options.push(next.index);
                    }
                    let code = self.role_hit(cx, opt, Some((next, &next.items)), &words[i..i + 2]);
                    Step {
                        consumed: 2,
                        code,
                        ..Step::default()
                    }
                }
                (None, None) => {
                    let code = self.role_hit(cx, opt, None, std::slice::from_ref(word));
                    Step {
                        consumed: 1,
                        code,
                        ..Step::default()
                    }
                }
            },
            Arity::Command => {
                let start = i + 1;
                let end = words[start..]
                    .iter()
                    .position(|w| matches!(w.literal(), Some(";" | "+")))
                    .map_or(words.len(), |p| start + p);
                self.role_hit(cx, opt, None, std::slice::from_ref(word));
                if start < end {
                    self.nested(&cx.binary, &words[start..end], cx.depth);
                }
                Step {
                    consumed: end - i + usize::from(end < words.len()),
                    code: true,
                    ..Step::default()
                }
            }
        }
    }
}

/// Length of an option word's name (characters up to `=` or the first slot).
pub(super) fn word_len(prefix: &str, name_end: usize) -> usize {
    prefix.chars().count().min(name_end)
}

pub(super) fn all_opts<'o>(opts: &'o [&'o [Opt]]) -> impl Iterator<Item = &'o Opt> {
    opts.iter().flat_map(|list| list.iter())
}

/// Whether some option of these lists takes code or a remote name as its value: only then
/// is the token after an option a slot chooses a site (`grep -<flags> <pattern>`: no grep
/// option takes code, though the flags could choose `-R`, a site of its own).
pub(super) fn takes_code(opts: &[&[Opt]]) -> bool {
    all_opts(opts).any(|opt| matches!(opt.role, Role::Code | Role::Load | Role::Remote))
}

pub(super) fn lookup_short<'o>(opts: &'o [&'o [Opt]], c: char) -> Option<&'o Opt> {
    all_opts(opts).find(|opt| {
        let mut chars = opt.name.chars();
        chars.next() == Some('-') && chars.next() == Some(c) && chars.next().is_none()
    })
}

/// A long option or single-dash word: exact, else (when `abbreviations`) a prefix of at least
/// three characters of one: a prefix of a code-entry or effect option is taken as that option
/// (GNU `getopt_long` accepts `--ev` for `--eval`; ambiguous prefixes are refused on the safe
/// side), else a prefix of exactly one plain option is that option.
pub(super) fn lookup_word<'o>(
    opts: &'o [&'o [Opt]],
    name: &str,
    abbreviations: bool,
) -> Option<&'o Opt> {
    if let Some(opt) = all_opts(opts).find(|opt| opt.name == name) {
        return Some(opt);
    }
    if abbreviations
        && let Some(single) = name.strip_prefix('-')
        && single.starts_with('-')
        && !single.starts_with("--")
        && all_opts(opts).any(|opt| opt.name.len() > 2 && !opt.name.starts_with("--"))
    {
        // `getopt_long_only` binaries (`gdb --args`) take a word with one dash or two.
        if let Some(opt) = lookup_word(opts, single, true) {
            return Some(opt);
        }
    }
    // Families listed by a `*` pattern: `--experimental-*`, `-X*` (never a code-entry
    // option: those are listed by name, and the exact names above win).
    if let Some(opt) = all_opts(opts).find(|opt| {
        opt.name
            .strip_suffix('*')
            .is_some_and(|family| name.starts_with(family))
    }) {
        return Some(opt);
    }
    if !abbreviations || name.chars().count() < 3 {
        return None;
    }
    let dashes = |s: &str| s.len() - s.trim_start_matches('-').len();
    let candidates: Vec<&Opt> = all_opts(opts)
        .filter(|opt| {
            opt.name.len() > name.len()
                && opt.name.starts_with(name)
                && dashes(opt.name) == dashes(name)
                && !opt.name.ends_with([':', '*'])
                // A syntax check lets a program operand through: only its full name counts.
                && opt.role != Role::Check
        })
        .collect();
    let danger = |opt: &&Opt| match opt.role {
        Role::Code | Role::Load => 2,
        Role::Effect | Role::Remote => 1,
        Role::Plain | Role::Check => 0,
    };
    // The first listed of the most dangerous candidates.
    let best = candidates
        .iter()
        .copied()
        .fold(None, |best: Option<&Opt>, opt| match best {
            Some(b) if danger(&b) >= danger(&opt) => Some(b),
            _ => Some(opt),
        });
    match best {
        Some(opt) if opt.role != Role::Plain => Some(opt),
        Some(opt) if candidates.len() == 1 => Some(opt),
        _ => None,
    }
}

/// A word option written with its value attached: `-javaagent:x` (names ending in `:`), or
/// in bundle-parsing binaries a code-entry word of more than one letter followed by text
/// (`zip -TTcmd`).
pub(super) fn attached_word<'o>(
    opts: &'o [&'o [Opt]],
    prefix: &str,
    len: usize,
    long_only: bool,
) -> Option<&'o Opt> {
    all_opts(opts).find(|opt| {
        if opt.name.ends_with(':') {
            return prefix.starts_with(opt.name);
        }
        !long_only
            && !opt.name.starts_with("--")
            && opt.name.chars().count() > 2
            && opt.role != Role::Plain
            && opt.arity != Arity::Flag
            && len > opt.name.chars().count()
            && prefix.starts_with(opt.name)
    })
}
