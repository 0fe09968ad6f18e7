#!/usr/bin/env python3
"""Check the background set of everyday coding requests.

Validates each language file (JSON array, fields, allowed values, lengths),
refuses duplicates (within and across files, after normalising case and
spaces), absolute paths of a development machine and anything shaped like a
real secret, and prints counts per file, kind and pasted material.

Usage: python3 check.py            (from anywhere; exits 1 on any problem)
       python3 check.py --markdown (counts as a Markdown table for the README)
"""

import json
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
FILES = ("en", "zh", "ja", "ko", "mixed")
KINDS = ("short", "medium", "long")
PASTED = ("none", "code", "log", "trace", "diff", "terminal", "config")
FIELDS = {"text", "lang", "kind", "pasted", "topic"}
# The floor each file must reach, and the share of long requests with pasted
# material each must hold (issue 24).
MINIMUM = {"en": 220, "zh": 140, "ja": 140, "ko": 140, "mixed": 80}
MIN_LONG_PASTED_SHARE = 0.15
MAX_CHARS = 3000
# A short request is one line; a medium one a few sentences; a long one is
# long or holds several pasted lines. Widths count a CJK character twice (it
# carries about as much as two Latin letters).
SHORT_MAX_WIDTH = 120
MEDIUM_MAX_WIDTH = 400
LONG_MIN_WIDTH = 200

CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
HANGUL = re.compile(r"[\uac00-\ud7af]")
KANA = re.compile(r"[\u3040-\u30ff]")
HAN = re.compile(r"[\u4e00-\u9fff]")
LATIN_WORD = re.compile(r"[A-Za-z]{2,}")

# Paths of the machine the set was written on (its checkouts, its home).
MACHINE_PATHS = re.compile(r"(?<![\w.])/(?:work|root|tmp/bash_jobs)[/\s]")

# The shapes memctl's secret guard (crates/mdstore/src/guard/secrets) treats
# as real secrets, reduced to those a log or snippet could plausibly hold.
SECRET_SHAPES = [
    ("private key", re.compile(r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY")),
    ("aws key id", re.compile(r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b")),
    ("github token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_)")),
    ("gitlab token", re.compile(r"\bglpat-[A-Za-z0-9_-]{10,}")),
    ("slack token", re.compile(r"\bxox[abeprs]-[0-9A-Za-z-]{8,}")),
    ("openai/anthropic key", re.compile(r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}")),
    ("stripe key", re.compile(r"\b[rs]k_(?:live|test|prod)_[0-9A-Za-z]{8,}")),
    ("google api key", re.compile(r"\bAIza[0-9A-Za-z_-]{20,}")),
    ("npm token", re.compile(r"\bnpm_[A-Za-z0-9]{20,}")),
    ("hugging face token", re.compile(r"\bhf_[A-Za-z]{20,}")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.")),
    ("bearer token", re.compile(r"(?i)\bbearer\s+(?!<)[A-Za-z0-9._~+/-]{16,}")),
    ("password in url", re.compile(r"[a-z][a-z0-9+.-]*://[^\s/:@]*:(?P<v>[^\s/@]+)@")),
    (
        "assigned secret",
        re.compile(
            r"(?i)\b[a-z0-9_.-]*(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|private[_-]?key|credentials?)"
            r"[\"'*_]*\s*(?::=|=>|[:=])\s*[\"'`]?(?P<v>[^\s\"'`,;]+)"
        ),
    ),
    (
        "password in prose",
        re.compile(r"(?:비밀번호|패스워드|密码|パスワード)\s*(?:는|은|:|：|是|は|=)\s*(?P<v>[!-~]{6,})"),
    ),
]


def is_placeholder(value: str) -> bool:
    """`<TOKEN>`, `${VAR}`, `$VAR`, `{{ var }}`, `***`, `xxx`, `example`..."""
    lower = value.lower()
    return (
        value.startswith(("<", "$", "%", "{"))
        or "${" in value
        or "{{" in value
        or set(value) <= set("xX*.-_#?•0")
        or "xxx" in lower
        or any(word in lower for word in ("example", "changeme", "your", "placeholder", "dummy", "redacted"))
        # A reference to a secret kept elsewhere: an environment variable's
        # name, code (`os.environ[...]`, `settings.TOKEN`), a path.
        or re.fullmatch(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+", value) is not None
        or re.fullmatch(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+", value) is not None
        or "(" in value
        or "[" in value
        or value.startswith(("/", "./"))
    )


def looks_random(value: str) -> bool:
    kinds = sum(
        any(test(c) for c in value)
        for test in (str.islower, str.isupper, str.isdigit, lambda c: not c.isalnum())
    )
    return len(value) >= 6 and kinds >= 2 and not value.isalpha()


def secret_problems(text: str) -> list:
    found = []
    for name, pattern in SECRET_SHAPES:
        for match in pattern.finditer(text):
            value = match.groupdict().get("v")
            if value is not None:
                value = value.rstrip(".,;:)")
                if is_placeholder(value) or not looks_random(value):
                    continue
            found.append(f"{name}: {match.group(0)[:40]!r}")
    return found


def normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).lower()
    return re.sub(r"\s+", " ", text).strip(" .?!。？！")


def language_problems(lang: str, text: str) -> list:
    """The prose must be in the file's language (pasted logs are English)."""
    prose = text.split("\n", 1)[0]
    problems = []
    if lang == "en" and CJK.search(text):
        problems.append("CJK text in the English file")
    if lang == "ko" and not HANGUL.search(prose):
        problems.append("no Hangul in the first line")
    if lang == "ja" and not (KANA.search(text) or HAN.search(prose)):
        problems.append("no Japanese in the text")
    if lang == "ja" and not KANA.search(text) and len(prose) > 20:
        problems.append("no kana in a Japanese request")
    if lang == "zh" and (not HAN.search(prose) or KANA.search(text) or HANGUL.search(text)):
        problems.append("not Chinese prose")
    if lang == "mixed" and not (CJK.search(text) and LATIN_WORD.search(text)):
        problems.append("a mixed request needs CJK and Latin words")
    return problems


def width(text: str) -> int:
    return len(text) + len(CJK.findall(text))


def shape_problems(entry: dict) -> list:
    text, kind, pasted = entry["text"], entry["kind"], entry["pasted"]
    problems = []
    wide = width(text)
    if text != text.strip():
        problems.append("leading or trailing whitespace")
    if len(text) > MAX_CHARS:
        problems.append(f"{len(text)} characters, more than {MAX_CHARS}")
    if kind == "short" and ("\n" in text or wide > SHORT_MAX_WIDTH):
        problems.append("a short request is one line of a few words")
    if kind == "medium" and ("\n" in text or wide > MEDIUM_MAX_WIDTH):
        problems.append("a medium request is one paragraph of a few sentences")
    if kind == "long" and pasted == "none" and wide < LONG_MIN_WIDTH:
        problems.append(f"a long request without pasted material of width {wide}")
    if pasted != "none" and kind == "short":
        problems.append("pasted material in a short request")
    if kind == "long" and pasted != "none" and text.count("\n") < 3:
        problems.append("long with pasted material but fewer than four lines")
    return problems


def check_file(name: str, seen: dict) -> tuple:
    path = HERE / f"{name}.json"
    problems = []
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        return [], [f"{path.name}: cannot read: {err}"]
    if not isinstance(entries, list):
        return [], [f"{path.name}: not a JSON array"]
    for index, entry in enumerate(entries):
        where = f"{path.name}[{index}]"
        if not isinstance(entry, dict) or set(entry) != FIELDS:
            problems.append(f"{where}: fields must be exactly {sorted(FIELDS)}")
            continue
        if not all(isinstance(entry[field], str) and entry[field] for field in FIELDS):
            problems.append(f"{where}: every field must be a non-empty string")
            continue
        if entry["lang"] != name:
            problems.append(f"{where}: lang {entry['lang']!r} in {path.name}")
        if entry["kind"] not in KINDS:
            problems.append(f"{where}: kind {entry['kind']!r} not in {KINDS}")
        if entry["pasted"] not in PASTED:
            problems.append(f"{where}: pasted {entry['pasted']!r} not in {PASTED}")
        if len(entry["topic"]) > 40:
            problems.append(f"{where}: topic longer than a few words")
        text = entry["text"]
        problems += [f"{where}: {p}" for p in shape_problems(entry)]
        problems += [f"{where}: {p}" for p in language_problems(name, text)]
        if MACHINE_PATHS.search(text):
            problems.append(f"{where}: absolute path of a machine: {MACHINE_PATHS.search(text).group(0)!r}")
        problems += [f"{where}: looks like a secret ({p})" for p in secret_problems(text)]
        key = normalise(text)
        if key in seen:
            problems.append(f"{where}: duplicate of {seen[key]}")
        else:
            seen[key] = where
    return entries, problems


def main() -> int:
    seen = {}
    problems = []
    table = []
    total = 0
    for name in FILES:
        entries, file_problems = check_file(name, seen)
        problems += file_problems
        if not entries:
            continue
        kinds = Counter(e.get("kind") for e in entries)
        pasted = Counter(e.get("pasted") for e in entries)
        long_pasted = sum(1 for e in entries if e.get("kind") == "long" and e.get("pasted") != "none")
        share = long_pasted / len(entries)
        if len(entries) < MINIMUM[name]:
            problems.append(f"{name}.json: {len(entries)} requests, fewer than {MINIMUM[name]}")
        if share < MIN_LONG_PASTED_SHARE:
            problems.append(f"{name}.json: long with pasted material {share:.0%}, under {MIN_LONG_PASTED_SHARE:.0%}")
        total += len(entries)
        table.append((name, len(entries), kinds, pasted, long_pasted, share))

    if "--markdown" in sys.argv:
        head = ["file", "requests", *KINDS, "long with paste", *PASTED[1:]]
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for name, count, kinds, pasted, long_pasted, share in table:
            cells = [f"{name}.json", count, *(kinds[k] for k in KINDS), f"{long_pasted} ({share:.0%})"]
            cells += [pasted[p] for p in PASTED[1:]]
            print("| " + " | ".join(str(c) for c in cells) + " |")
    else:
        for name, count, kinds, pasted, long_pasted, share in table:
            print(
                f"{name:6} {count:4}  "
                + " ".join(f"{k}={kinds[k]}" for k in KINDS)
                + f"  long+pasted={long_pasted} ({share:.0%})  "
                + " ".join(f"{p}={pasted[p]}" for p in PASTED)
            )
        print(f"total  {total:4}")
    for problem in problems:
        print("problem:", problem, file=sys.stderr)
    if problems:
        print(f"{len(problems)} problem(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
