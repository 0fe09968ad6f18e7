#!/usr/bin/env python3
"""The reindex floor of crates/bench (issue 29): a plain Python program that
does the least a full reindex must do. It walks the store (hidden entries and
MEMORY.md left out), reads every `.md` file, takes `name` and `description`
from a frontmatter block by line (no YAML parser), and inserts each record's
stat row and its text into SQLite (a plain table and an FTS5 table with
memctl's tokenizer), in one transaction, WAL journal.

Usage: fts_floor.py STORE_DIR DB_PATH   (DB_PATH is replaced)
"""
import os
import sqlite3
import sys


def walk(root):
    stack = [root]
    while stack:
        folder = stack.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.startswith("."):
                    continue
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif entry.name.endswith(".md") and not (
                    folder == root and entry.name == "MEMORY.md"
                ):
                    yield entry


def split(text):
    """(name, description, body) of a record's text."""
    text = text.lstrip("\ufeff")
    if not text.startswith("---"):
        return "", "", text
    end = text.find("\n---", 3)
    if end < 0:
        return "", "", text
    name = description = ""
    for line in text[3:end].splitlines():
        key, _, value = line.partition(":")
        if key == "name":
            name = value.strip()
        elif key == "description":
            description = value.strip().strip('"')
    return name, description, text[end + 4 :]


def main():
    root, db_path = sys.argv[1], sys.argv[2]
    for suffix in ("", "-wal", "-shm"):
        try:
            os.remove(db_path + suffix)
        except FileNotFoundError:
            pass
    db = sqlite3.connect(db_path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute(
        "CREATE TABLE docs(rel_path TEXT PRIMARY KEY, mtime_ns INTEGER, size INTEGER, inode INTEGER)"
    )
    db.execute(
        "CREATE VIRTUAL TABLE fts USING fts5(name, description, body, "
        "tokenize='unicode61 remove_diacritics 2')"
    )
    with db:
        for entry in walk(root):
            stat = entry.stat(follow_symlinks=False)
            with open(entry.path, "rb") as f:
                text = f.read().decode("utf-8", errors="replace")
            rel = os.path.relpath(entry.path, root)
            cursor = db.execute(
                "INSERT INTO docs VALUES (?, ?, ?, ?)",
                (rel, stat.st_mtime_ns, stat.st_size, stat.st_ino),
            )
            db.execute(
                "INSERT INTO fts(rowid, name, description, body) VALUES (?, ?, ?, ?)",
                (cursor.lastrowid, *split(text)),
            )
    db.close()


if __name__ == "__main__":
    main()
