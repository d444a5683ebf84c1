"""The text side of recall: SQLite FTS5 with ``bm25()`` and the porter stemmer over each card's
title, tags, claim and body, built on the first query of a set of cards and kept in the cache file
(in memory without one). Where the stdlib's ``sqlite3`` lacks FTS5, ``TextIndex`` says so
(``FTS5_MISSING``) and recall ranks by tags and recency, with a note, never an error. A query asks
for each word in both spellings (``spellings``, British and American), so ``quantisation`` finds
``quantization``; porter joins the inflections.
"""

from __future__ import annotations

import functools
import math
import re
import sqlite3
import unicodedata
from collections.abc import Sequence

from ds_gate.recall.entries import Entry
from ds_gate.recall.tags import BRITISH_ENDINGS, BRITISH_WORDS, word_key

_WORD = re.compile(r"\w+", re.UNICODE)
FTS5_MISSING = (
    "this Python's sqlite3 has no FTS5, so the text query was not used: cards are ranked by tags and "
    "recency only (a Python built with SQLite's FTS5, as python.org's and the distributions' are, has it)"
)
# bm25 column weights: title, tags, claim, body. A word in the title, the tags or the claim
# says what the lesson is about; the body also says how it was found. (Chosen once, before
# the evaluation's paraphrase slice was extended, and not tuned per query.)
WEIGHTS = (1.0, 1.0, 1.0, 1.0)


def _plain(text: str) -> str:
    """What is indexed: the text, NFKC-normalised when it is not ASCII (unicode61 folds case
    itself, but not the full-width or ligature forms NFKC joins)."""
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


@functools.lru_cache(maxsize=65536)
def spellings(word: str) -> tuple[str, ...]:
    """A query word and its other spelling (``quantisation`` <-> ``quantization``,
    ``colour`` <-> ``color``): the query asks for both, so the indexed text is stored as written
    and indexing 10,000 cards costs no Python per word."""
    out = [word]
    american = word_key(word)
    if not word.startswith(american):  # a British spelling (not only a plural)
        out.append(american)
    for british, american_end in BRITISH_ENDINGS:
        if word.endswith(american_end) and len(word) > len(american_end) + 2:
            out.append(word[: -len(american_end)] + british)
            break
    out.extend(b for b, a in BRITISH_WORDS.items() if a == word)
    return tuple(dict.fromkeys(out))


def words(text: str) -> list[str]:
    """The distinct words of a query with their other spellings, in order (single letters
    dropped: they match everything)."""
    found = _WORD.findall(unicodedata.normalize("NFKC", text).casefold())
    return list(dict.fromkeys(s for w in found if len(w) > 1 for s in spellings(w)))


@functools.lru_cache(maxsize=1)
def fts5_available() -> bool:
    """Whether this Python's SQLite has FTS5 with the porter tokenizer: fixed for the process, so asked once."""
    try:
        sqlite3.connect(":memory:").execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61')")
    except sqlite3.Error:
        return False
    return True


class TextIndex:
    """Every entry's text in an FTS5 table, rowid = the entry's position: in the cache file
    when there is one (kept with the digest of the files it was made from, so the next
    process's query costs no indexing), else in memory."""

    def __init__(self, entries: Sequence[Entry], db: sqlite3.Connection | None = None, digest: str = "") -> None:
        self.available = fts5_available()
        self.db: sqlite3.Connection | None = None
        self.digest = digest
        if not self.available:
            return
        if db is not None and digest:
            try:
                if db.execute("SELECT value FROM meta WHERE key='fts'").fetchone() != (digest,):
                    rows = _rows(entries)
                    with db:
                        db.execute("BEGIN IMMEDIATE")
                        db.execute("DROP TABLE IF EXISTS fts")
                        db.execute(f"CREATE VIRTUAL TABLE fts USING {_TABLE}")
                        db.executemany(_INSERT, rows)
                        db.execute("INSERT OR REPLACE INTO meta VALUES ('fts', ?)", (digest,))
                self.db = db
                return
            except sqlite3.Error:  # locked or read-only: this process indexes in memory
                pass
        self.digest = ""
        db = sqlite3.connect(":memory:")
        db.execute(f"CREATE VIRTUAL TABLE fts USING {_TABLE}")
        db.executemany(_INSERT, _rows(entries))
        self.db = db

    def search(self, query_words: Sequence[str]) -> dict[int, float] | None:
        """Entry position -> BM25 score (higher is better) of every entry matching any word;
        None when the cache file's table was replaced meanwhile (another scope's recall)."""
        if self.db is None or not query_words:
            return {}
        match = " OR ".join('"' + w.replace('"', "") + '"' for w in query_words)
        sql = f"SELECT rowid, bm25(fts, {', '.join(map(str, WEIGHTS))}) FROM fts WHERE fts MATCH ?"
        if not self.digest:
            rows = self.db.execute(sql, (match,)).fetchall()
        else:
            try:
                with self.db:
                    self.db.execute("BEGIN")  # the table and its digest read at one moment
                    if self.db.execute("SELECT value FROM meta WHERE key='fts'").fetchone() != (self.digest,):
                        return None
                    rows = self.db.execute(sql, (match,)).fetchall()
            except sqlite3.Error:
                return None
        return {int(i): -float(score) for i, score in rows}


_TABLE = "fts5(title, tags, claim, body, tokenize='porter unicode61')"
_INSERT = "INSERT INTO fts(rowid, title, tags, claim, body) VALUES (?, ?, ?, ?, ?)"


def _rows(entries: Sequence[Entry]) -> list[tuple[int, str, str, str, str]]:
    rows = []
    for i, e in enumerate(entries):
        title, tags, claim, body = e.indexed()
        rows.append((i, _plain(title), _plain(tags), _plain(claim), _plain(body)))
    return rows


def idf(df: int, n: int) -> float:
    """BM25's inverse document frequency (the same one FTS5 uses for a word), for a tag."""
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def tag_text(tags: tuple[str, ...]) -> str:
    """Tags as words of a text query: their values only (``topic:`` says what kind of tag it
    is, and every card has one, so it would match every card)."""
    return " ".join(t.rpartition(":")[2].replace("-", " ") for t in tags)
