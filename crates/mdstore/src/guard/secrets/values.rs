//! Checks on a matched value: is it a real secret, or text that stands for
//! one (a placeholder, a reference to a secret kept elsewhere, a word)?

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::{Captures, Regex};

use crate::guard::builtin_regex;

/// Decides, from a match's captures, whether it really is a secret.
pub(super) type Check = fn(&Captures<'_>) -> bool;

pub(super) fn always(_: &Captures<'_>) -> bool {
    true
}

fn named<'t>(captures: &Captures<'t>, name: &str) -> &'t str {
    captures.name(name).map_or("", |m| m.as_str())
}

/// The assigned value: quoted (`dq`, `sq`, `bq`) or bare (`bare`, `value`).
fn assigned<'t>(captures: &Captures<'t>) -> (&'t str, bool) {
    match ["dq", "sq", "bq"]
        .iter()
        .find_map(|name| captures.name(name))
    {
        Some(quoted) => (quoted.as_str(), true),
        None => (
            captures
                .name("bare")
                .or_else(|| captures.name("value"))
                .map_or("", |m| m.as_str()),
            false,
        ),
    }
}

/// A fixed-format key value (AWS, Azure, a provider's secret next to its
/// name): random-looking and not masked or templated. Documentation example
/// values (`…EXAMPLEKEY`) count: they have the shape of a real key, and a
/// memory is no place for either.
pub(super) fn random_value(captures: &Captures<'_>) -> bool {
    let value = named(captures, "value");
    !is_masked_or_templated(value) && shannon_entropy(value) >= 3.0
}

/// `sk-` starts ordinary words too (`sk-learn-compatible-estimators`); a
/// key is random, so it mixes upper and lower case and digits.
pub(super) fn mixed_case_and_digits(captures: &Captures<'_>) -> bool {
    let value = named(captures, "value");
    value.bytes().any(|b| b.is_ascii_digit())
        && value.bytes().any(|b| b.is_ascii_uppercase())
        && value.bytes().any(|b| b.is_ascii_lowercase())
}

/// A token whose alphabet is hex or letters only still mixes two kinds of
/// character when it is random (`SK` + 32 hex digits, `hf_` + letters).
pub(super) fn two_kinds(captures: &Captures<'_>) -> bool {
    character_kinds(named(captures, "value")) >= 2
}

/// A password in a URL, an assignment or a sentence.
pub(super) fn password(captures: &Captures<'_>) -> bool {
    let (value, quoted) = assigned(captures);
    let value = if quoted { value } else { trim_prose(value) };
    is_password(value) && (quoted || !is_reference(value))
}

/// A password in a sentence. Without a verb ("log in with password
/// Tr0ub4dor&7"), the word after "password" is mostly prose ("the password
/// field", "password reset flow", "password argon2id-hashed"), so it must
/// mix three kinds of character and not be words.
pub(super) fn password_in_prose(captures: &Captures<'_>) -> bool {
    if captures.name("verb").is_some() {
        return password(captures);
    }
    let (value, quoted) = assigned(captures);
    let value = if quoted { value } else { trim_prose(value) };
    password(captures) && character_kinds(value) >= 3 && !is_words(value)
}

/// A generic key, token or secret in an assignment (or after `Bearer`):
/// random-looking, not code, not a path, not words (`Domain01\User01`,
/// `Desktop/Title/H1`, `Get-AzKeyVaultSecret`), and not under a name that
/// says it is public (.NET's `PublicKeyToken=31bf3856ad364e35`).
pub(super) fn assigned_secret(captures: &Captures<'_>) -> bool {
    let (value, quoted) = assigned(captures);
    let value = if quoted { value } else { trim_prose(value) };
    let public = named(captures, "key").to_lowercase().contains("public");
    !public && is_secret_literal(value) && !is_reference(value) && !is_words(value)
}

/// Sentence punctuation after a bare value is not part of it.
fn trim_prose(value: &str) -> &str {
    value.trim_end_matches([
        '.', ',', ';', ':', '!', '?', ')', ']', '*', '_', '"', '\'', '`',
    ])
}

/// Shortest password reported: `hunter2` is one, `admin` or `1234` are
/// more likely a length or a user name than a password.
const MIN_PASSWORD_CHARS: usize = 6;

/// People choose passwords, so they need not be random: any value of at
/// least [`MIN_PASSWORD_CHARS`] that holds a digit or a symbol, or is long
/// and random-looking, and is not a placeholder. A plain word (`required`,
/// `stored`, `postgres`) is taken for prose or a well-known default.
fn is_password(value: &str) -> bool {
    let length = value.chars().count();
    if length < MIN_PASSWORD_CHARS || is_placeholder(value) {
        return false;
    }
    let has_digit_or_symbol = value.chars().any(|c| {
        c.is_ascii_digit()
            || (!c.is_alphanumeric() && !c.is_whitespace() && !matches!(c, '-' | '_' | '.'))
    });
    let spaced_words = value.contains(' ');
    if spaced_words {
        // A quoted passphrase: long, mixed, not a sentence about a password.
        return length >= 12 && character_kinds(value) >= 2 && has_digit_or_symbol;
    }
    has_digit_or_symbol
        || (length >= 12
            && shannon_entropy(value) >= 3.5
            && character_kinds(value) >= 2
            && !is_words(value))
}

/// Words joined by punctuation or case (`Desktop/Title/H1`,
/// `exchangeadmin01@hotmail.com`, `ConvertTo-SecureString`): each piece is
/// a word (with a vowel, once three letters long) or an acronym of up to
/// five capitals, with at most two digits after it, and the pieces average
/// three characters or more. Random strings break one of these: digits
/// inside a piece, runs of consonants, case switching every character.
fn is_words(value: &str) -> bool {
    static WORD: LazyLock<Regex> =
        LazyLock::new(|| builtin_regex(r"^(?:[A-Z]?[a-z]+|[A-Z]{1,5})[0-9]{0,2}$"));
    // `camelCase` and `HTTPServer` split before the capital that starts a word.
    static CASE_BOUNDARY: LazyLock<Regex> =
        LazyLock::new(|| builtin_regex(r"([a-z0-9])([A-Z])|([A-Z])([A-Z][a-z])"));
    let split = CASE_BOUNDARY.replace_all(value, "$1$3 $2$4");
    let pieces: Vec<&str> = split
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|piece| !piece.is_empty())
        .collect();
    !pieces.is_empty()
        && pieces
            .iter()
            .all(|piece| WORD.is_match(piece) && has_vowel_if_long(piece))
        && pieces.iter().map(|piece| piece.len()).sum::<usize>() >= 3 * pieces.len()
}

/// Words of three letters or more hold a vowel (acronyms aside); random
/// runs of letters mostly do not.
fn has_vowel_if_long(piece: &str) -> bool {
    let letters = piece.bytes().filter(u8::is_ascii_alphabetic).count();
    let acronym = !piece.bytes().any(|b| b.is_ascii_lowercase());
    acronym || letters < 3 || piece.bytes().any(|b| b"aeiouyAEIOUY".contains(&b))
}

/// Entropy (bits per character) above which a literal of at least
/// [`MIN_SECRET_CHARS`] looks random rather than like a word or a name.
const MIN_ENTROPY: f64 = 3.0;
const MIN_SECRET_CHARS: usize = 8;

/// A literal value that looks like a real key or token: long enough, not a
/// placeholder, high in entropy, and mixing at least two kinds of character
/// (so that `GITHUB_TOKEN`, `the-deploy-key-in-vault` or `correct horse`
/// pass).
fn is_secret_literal(value: &str) -> bool {
    value.chars().count() >= MIN_SECRET_CHARS
        && !is_placeholder(value)
        && shannon_entropy(value) >= MIN_ENTROPY
        && character_kinds(value) >= 2
}

/// Text standing for a secret instead of being one: `<password>`, `${VAR}`,
/// `$VAR`, `%VAR%`, `{{ var }}`, `xxxx`, `***`, `changeme`,
/// `your-password-here` …
pub(super) fn is_placeholder(value: &str) -> bool {
    const WORDS: &[&str] = &[
        "changeme",
        "change-me",
        "change_me",
        "your",
        "example",
        "placeholder",
        "redacted",
        "dummy",
        "sample",
        "replace",
        "fixme",
        "todo",
        "secret-here",
        "password-here",
        "token-here",
        "key-here",
    ];
    let lower = value.trim().to_lowercase();
    // `xxx` in one case is a mask (`sk-xxxx`, `XXXX-XXXX`); mixed, it is chance.
    let crossed_out = value.contains("xxx") || value.contains("XXX");
    crossed_out || is_masked_or_templated(&lower) || WORDS.iter().any(|word| lower.contains(word))
}

/// `****`, `xxxx`, `<password>`, `${VAR}`, `$VAR`, `{{ var }}`, `%VAR%`,
/// `%(var)s`.
fn is_masked_or_templated(value: &str) -> bool {
    let value = value.trim();
    let masked = value.chars().all(|c| {
        matches!(
            c,
            'x' | 'X' | '*' | '•' | '…' | '.' | '#' | '?' | '-' | '_' | '0'
        )
    });
    masked
        || value.starts_with('<')
        || value.starts_with('$')
        || value.contains("${")
        || value.contains("{{")
        || value.contains("%(")
        || (value.len() > 2 && value.starts_with('%') && value.ends_with('%'))
}

/// A bare value that points at a secret kept elsewhere: code
/// (`os.getenv(…)`, `settings.API_TOKEN`), a path, a URL or the name of an
/// environment variable (`DB_PASSWORD`).
fn is_reference(value: &str) -> bool {
    static DOTTED_NAME: LazyLock<Regex> = LazyLock::new(|| {
        builtin_regex(r"^[A-Za-z_$][A-Za-z0-9_$]*(?:(?:\.|::|->)[A-Za-z_$][A-Za-z0-9_$]*)+$")
    });
    static ENV_NAME: LazyLock<Regex> =
        LazyLock::new(|| builtin_regex(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$"));
    value.contains(['(', ')', '[', '{'])
        || value.contains("://")
        || ["/", "./", "../", "~/"]
            .iter()
            .any(|p| value.starts_with(p))
        || DOTTED_NAME.is_match(value)
        || ENV_NAME.is_match(value)
}

/// Shannon entropy in bits per character.
pub(super) fn shannon_entropy(value: &str) -> f64 {
    let mut counts: HashMap<char, usize> = HashMap::new();
    let mut total = 0usize;
    for c in value.chars() {
        *counts.entry(c).or_default() += 1;
        total += 1;
    }
    let total = total as f64;
    counts
        .values()
        .map(|&count| {
            let p = count as f64 / total;
            -p * p.log2()
        })
        .sum()
}

/// How many of lower case, upper case, digits and symbols a value mixes.
/// Word separators (`-`, `_`, `.`, space) are not symbols.
fn character_kinds(value: &str) -> usize {
    let lower = value.chars().any(char::is_lowercase);
    let upper = value.chars().any(char::is_uppercase);
    let digit = value.chars().any(|c| c.is_ascii_digit());
    let symbol = value
        .chars()
        .any(|c| !c.is_alphanumeric() && !c.is_whitespace() && !matches!(c, '-' | '_' | '.'));
    [lower, upper, digit, symbol]
        .into_iter()
        .filter(|&k| k)
        .count()
}
