"""The text side of recall: SQLite FTS5 with ``bm25()`` and the porter stemmer over each card's
title, tags, claim and body, built on the first query of a set of cards and kept in the cache file
(in memory without one). Where the stdlib's ``sqlite3`` lacks FTS5, ``TextIndex`` says so
(``FTS5_MISSING``) and recall ranks by tags and recency, with a note, never an error. A query asks
for each word in both spellings (``spellings``, British and American), so ``quantisation`` finds
``quantization``; porter joins the inflections.

Beside it, substrings, as DeepScientist's own ``memory.search`` matches (the query within a
card's text, case aside): a run of Chinese (or Japanese, Korean) characters, which the stemming
index sees as one long token, and a Latin word of three characters or more that no card holds as
a word (``quant``), are ``substrings`` matched by a second FTS5 table with SQLite's ``trigram``
tokenizer (SQLite >= 3.34), index-backed. A Chinese run longer than three characters is asked as
its overlapping three-character pieces, so ``量化感知训练的学习率`` finds a card holding
``学习率`` alone; a two-character run (``预热``) is read by a scan. Each substring a card holds
adds that substring's inverse document frequency, what a word's BM25 is for one occurrence. On an
SQLite without ``trigram`` the same substrings are found by a scan of the stemming table (``LIKE``):
the same results, slower (``substring_scan``).
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
# Han (with extension A and the compatibility block), kana, Hangul: scripts written without spaces
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")
SUBSTRING = 3  # the shortest Latin word matched within words (what a trigram index can look up)
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
    dropped: they match everything), then its Chinese runs as ``substrings``. A hyphenated pair
    also asks for its closed compound (``over-smoothing`` -> ``oversmoothing``)."""
    plain = unicodedata.normalize("NFKC", text).casefold()
    latin = _CJK.sub(" ", plain)
    found = [*_WORD.findall(latin), *("".join(pair) for pair in _PAIR.findall(latin))]
    return list(dict.fromkeys([*(s for w in found if len(w) > 1 for s in spellings(w)), *substrings(plain)]))


_PAIR = re.compile(r"\b(\w+)-(\w+)\b")


def substrings(text: str) -> list[str]:
    """The query's Chinese runs, each as itself (two or three characters) or as its overlapping
    three-character pieces (longer), in order; a single character is dropped, as a letter is."""
    out: list[str] = []
    for run in _CJK.findall(unicodedata.normalize("NFKC", text)):
        if len(run) <= SUBSTRING:
            out.extend([run] if len(run) > 1 else [])
        else:
            out.extend(run[i : i + SUBSTRING] for i in range(len(run) - SUBSTRING + 1))
    return list(dict.fromkeys(out))


@functools.lru_cache(maxsize=1)
def fts5_available() -> bool:
    """Whether this Python's SQLite has FTS5 with the porter tokenizer: fixed for the process, so asked once."""
    try:
        sqlite3.connect(":memory:").execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61')")
    except sqlite3.Error:
        return False
    return True


@functools.lru_cache(maxsize=1)
def trigram_available() -> bool:
    """Whether this SQLite has FTS5's ``trigram`` tokenizer (3.34 and later): else substrings are scanned."""
    try:
        sqlite3.connect(":memory:").execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='trigram')")
    except sqlite3.Error:
        return False
    return True


class TextIndex:
    """Every entry's text in an FTS5 table, rowid = the entry's position, and (with ``trigram``)
    in a second one for substrings: in the cache file when there is one (kept with the digest of
    the files it was made from, so the next process's query costs no indexing), else in memory."""

    def __init__(self, entries: Sequence[Entry], db: sqlite3.Connection | None = None, digest: str = "") -> None:
        self.available = fts5_available()
        self.trigram = self.available and trigram_available()
        self.db: sqlite3.Connection | None = None
        # the tables kept are those this SQLite made: one upgraded to trigram makes them again
        digest = f"{digest}:trigram" if digest and self.trigram else digest
        self.digest = digest
        if not self.available:
            return
        if db is not None and digest:
            try:
                if db.execute("SELECT value FROM meta WHERE key='fts'").fetchone() != (digest,):
                    rows = _rows(entries)
                    with db:
                        db.execute("BEGIN IMMEDIATE")
                        self._create(db, rows)
                        db.execute("INSERT OR REPLACE INTO meta VALUES ('fts', ?)", (digest,))
                self.db = db
                return
            except sqlite3.Error:  # locked or read-only: this process indexes in memory
                pass
        self.digest = ""
        db = sqlite3.connect(":memory:")
        self._create(db, _rows(entries))
        self.db = db

    def _create(self, db: sqlite3.Connection, rows: list[tuple[int, str, str, str, str]]) -> None:
        for name, table in (("fts", _TABLE), ("tri", _TRIGRAM)):
            db.execute(f"DROP TABLE IF EXISTS {name}")
            if name == "fts" or self.trigram:
                db.execute(f"CREATE VIRTUAL TABLE {name} USING {table}")
                db.executemany(_INSERT.format(name), rows)

    def search(self, query_words: Sequence[str]) -> dict[int, float] | None:
        """Entry position -> score (higher is better) of every entry matching any word (BM25) or
        holding any Chinese run (``substrings``) or any word no entry holds as a word, of
        ``SUBSTRING`` characters or more, as a substring; None when the cache file's table was
        replaced meanwhile (another scope's recall)."""
        if self.db is None or not query_words:
            return {}
        parts = [w for w in query_words if _CJK.search(w)]
        query_words = [w for w in query_words if not _CJK.search(w)]
        if not self.digest:
            return self._search(self.db, query_words, parts)
        try:
            with self.db:
                self.db.execute("BEGIN")  # the tables and their digest read at one moment
                if self.db.execute("SELECT value FROM meta WHERE key='fts'").fetchone() != (self.digest,):
                    return None
                return self._search(self.db, query_words, parts)
        except sqlite3.Error:
            return None

    def _search(self, db: sqlite3.Connection, query_words: Sequence[str], parts: Sequence[str]) -> dict[int, float]:
        scores: dict[int, float] = {}
        if query_words:
            match = " OR ".join(_quoted(w) for w in query_words)
            sql = f"SELECT rowid, bm25(fts, {', '.join(map(str, WEIGHTS))}) FROM fts WHERE fts MATCH ?"
            scores = {int(i): -float(score) for i, score in db.execute(sql, (match,))}
        inside = [w for w in query_words if len(w) >= SUBSTRING and w.isalnum() and not _holds(db, w)]
        terms = list(dict.fromkeys([*parts, *inside]))
        if terms:
            n = db.execute("SELECT count(*) FROM fts").fetchone()[0]
            for term in terms:
                found = [int(i) for (i,) in db.execute(*self._substring(term))]
                weight = idf(len(found), n)
                for i in found:
                    scores[i] = scores.get(i, 0.0) + weight
        return scores

    def _substring(self, term: str) -> tuple[str, tuple[str, ...]]:
        """The SQL finding the entries whose text holds ``term`` (case aside): the trigram index
        for three characters or more, else a scan (``LIKE``) of whichever table there is."""
        if self.trigram and len(term) >= SUBSTRING:
            return "SELECT rowid FROM tri WHERE tri MATCH ?", (_quoted(term),)
        table = "tri" if self.trigram else "fts"
        like = "%" + term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        where = " OR ".join(f"{c} LIKE ?1 ESCAPE '\\'" for c in _COLUMNS)
        return f"SELECT rowid FROM {table} WHERE {where}", (like,)


def _quoted(word: str) -> str:
    return '"' + word.replace('"', "") + '"'


def _holds(db: sqlite3.Connection, word: str) -> bool:
    """Whether some entry holds ``word`` as a word (stemmed as the index stems)."""
    return db.execute("SELECT 1 FROM fts WHERE fts MATCH ? LIMIT 1", (_quoted(word),)).fetchone() is not None


_COLUMNS = ("title", "tags", "claim", "body")
_TABLE = f"fts5({', '.join(_COLUMNS)}, tokenize='porter unicode61')"
_TRIGRAM = f"fts5({', '.join(_COLUMNS)}, tokenize='trigram')"
_INSERT = "INSERT INTO {}(rowid, title, tags, claim, body) VALUES (?, ?, ?, ?, ?)"


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
