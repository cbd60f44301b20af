"""A loopback HuggingFace hub for the tests: real hub layouts, built from ../shared/real.

``build_repos`` writes two dataset repos the way the hub serves them today:

- ``coastalcph/lex_glue``: ``<config>/{train,validation,test}-00000-of-00001.parquet`` for ecthr_a,
  scotus, eurlex and ledgar, and a README card whose YAML declares each config's data files and
  features. Rows are LexGLUE's original jsonl records mapped to the hub's schema with the REAL
  feature definitions (``lexglue/dataset_infos.json``: ClassLabel name lists, sequences); LEDGAR's
  test split is the 1,000 real test provisions of ``lexglue/ledgar-test-sample-1000.parquet``.
- ``stanfordnlp/imdb``: ``plain_text/{train,test,unsupervised}-00000-of-00001.parquet`` from the
  real review sample (train = its first half, test = the second, unsupervised = a few rows with
  label -1 as on the hub), at the commit the project pins.

``LoopbackHub`` serves them on 127.0.0.1 with the part of the hub API that ``huggingface_hub`` and
``datasets`` call for ``load_dataset(repo, name, revision=...)`` and ``snapshot_download``: repo
info at a revision, the file tree, paths-info, and ``resolve`` (HEAD and GET, with Range) carrying
the headers the clients check (``X-Repo-Commit``, ``ETag``, ``Content-Length``, ``X-Linked-*`` for
LFS files). Every request is logged in ``requests``, so a test can show what the clients asked.
Nothing from ../shared/real is ever written into the repository.
"""

from __future__ import annotations

import ast
import hashlib
import json
import threading
from dataclasses import dataclass, field
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

REAL = Path(__file__).resolve().parents[2].parent / "shared" / "real"
LEXGLUE = "coastalcph/lex_glue"
IMDB = "stanfordnlp/imdb"
IMDB_COMMIT = "e6281661ce1c48d982bc483cf8a173c1bbeb5d31"  # the revision hinter.data pins
LEXGLUE_CONFIGS = ("ecthr_a", "scotus", "eurlex", "ledgar")
SPLIT_OF = {"train": "train", "dev": "validation", "test": "test"}  # jsonl data_type -> hub split
IMDB_UNSUPERVISED = 5


def real_path(*parts: str) -> Path:
    """A file or folder of ../shared/real; skip the test (with the reason) when it is absent."""
    path = REAL.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"needs the real-data samples at {path} (../shared/real beside the repository)")
    return path


@dataclass
class HubRepo:
    """One dataset repo: files on disk under ``root`` and the commit they make up."""

    repo_id: str
    root: Path
    commit: str = ""
    files: dict[str, Path] = field(default_factory=dict)  # path in repo -> file

    def add(self, path_in_repo: str, content: bytes) -> None:
        target = self.root / path_in_repo
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        self.files[path_in_repo] = target

    def seal(self, commit: str | None = None) -> None:
        """Fix the commit: given (a pinned one) or derived from every file's path and digest."""
        digest = hashlib.sha1()
        for path in sorted(self.files):
            digest.update(path.encode() + b"\0" + sha256(self.files[path]).encode() + b"\n")
        self.commit = commit or digest.hexdigest()


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def is_lfs(path: str) -> bool:
    return path.endswith(".parquet")  # as on the hub: data files are LFS, the card is not


# ---------------------------------------------------------------------------------------------
# The repos


def lexglue_features(infos: dict, config: str):
    import datasets

    return datasets.Features.from_dict(
        {name: _drop_ids(spec) for name, spec in infos[config]["features"].items()}
    )


def _drop_ids(spec):
    """dataset_infos.json of the script era carries ``id``/``num_classes`` keys newer
    ``datasets`` versions do not take; the names and shapes are what matter."""
    if isinstance(spec, dict):
        spec = {k: _drop_ids(v) for k, v in spec.items() if k not in ("id", "num_classes")}
        if spec.get("_type") == "Sequence" and spec.get("length") == -1:
            spec.pop("length")
    return spec


def _listish(value) -> list:
    """jsonl list fields are Python-literal strings ("['8']") in these records."""
    return ast.literal_eval(value) if isinstance(value, str) else list(value)


def lexglue_rows(config: str, record: dict, features) -> dict:
    """One jsonl record in the hub's schema (LexGLUE's loading script's mapping)."""
    if config == "ecthr_a":
        names = features["labels"].feature.names
        labels = sorted(names.index(a) for a in _listish(record["violated_articles"]) if a in names)
        return {"text": _listish(record["facts"]), "labels": labels}
    if config == "scotus":
        return {"text": record["text"], "label": features["label"].str2int(record["issueArea"])}
    if config == "eurlex":
        names = features["labels"].feature.names
        labels = [names.index(c) for c in _listish(record["labels"]) if c in names]
        return {"text": record["text"], "labels": labels}
    if config == "ledgar":
        return {"text": record["text"], "label": features["label"].str2int(record["clause_type"])}
    raise ValueError(config)


def _parquet_bytes(rows: list[dict], features, tmp: Path) -> bytes:
    import datasets

    columns = {name: [row[name] for row in rows] for name in features}
    ds = datasets.Dataset.from_dict(columns, features=features)
    ds.to_parquet(str(tmp))  # the features travel in the schema metadata, as on the hub
    return tmp.read_bytes()


def build_lexglue(root: Path) -> HubRepo:
    import pyarrow.parquet as pq

    infos = json.loads(real_path("lexglue", "dataset_infos.json").read_text(encoding="utf-8"))
    repo = HubRepo(LEXGLUE, root / LEXGLUE)
    cards = []
    for config in LEXGLUE_CONFIGS:
        features = lexglue_features(infos, config)
        splits: dict[str, list[dict]] = {"train": [], "validation": [], "test": []}
        for line in real_path("lexglue", f"{config}.jsonl").read_text("utf-8").splitlines():
            record = json.loads(line)
            splits[SPLIT_OF[record["data_type"]]].append(lexglue_rows(config, record, features))
        if config == "ledgar":
            sample = pq.read_table(real_path("lexglue", "ledgar-test-sample-1000.parquet"))
            splits["test"] = sample.select(["text", "label"]).to_pylist()
        sizes = {}
        for split, rows in splits.items():
            name = f"{config}/{split}-00000-of-00001.parquet"
            repo.add(name, _parquet_bytes(rows, features, root / "tmp.parquet"))
            sizes[split] = (len(rows), repo.files[name].stat().st_size)
        cards.append((config, features, sizes))
    repo.add("README.md", dataset_card(cards, pretty_name="LexGLUE").encode())
    (root / "tmp.parquet").unlink()
    repo.seal()
    return repo


def build_imdb(root: Path) -> HubRepo:
    import datasets
    import pyarrow.parquet as pq

    sample = pq.read_table(real_path("imdb", "train-sample-2000.parquet")).select(["text", "label"])
    rows = sample.to_pylist()
    half = len(rows) // 2
    features = datasets.Features(
        {"text": datasets.Value("string"), "label": datasets.ClassLabel(names=["neg", "pos"])}
    )
    splits = {
        "train": rows[:half],
        "test": rows[half:],
        "unsupervised": [{"text": r["text"], "label": -1} for r in rows[:IMDB_UNSUPERVISED]],
    }
    repo = HubRepo(IMDB, root / IMDB)
    sizes = {}
    for split, split_rows in splits.items():
        name = f"plain_text/{split}-00000-of-00001.parquet"
        repo.add(name, _parquet_bytes(split_rows, features, root / "tmp.parquet"))
        sizes[split] = (len(split_rows), repo.files[name].stat().st_size)
    (root / "tmp.parquet").unlink()
    repo.add("README.md", dataset_card([("plain_text", features, sizes)], "IMDB").encode())
    repo.seal(IMDB_COMMIT)
    return repo


def dataset_card(configs, pretty_name: str) -> str:
    """A README whose YAML header declares configs, data files and features like the hub's."""
    import yaml

    meta = {
        "pretty_name": pretty_name,
        "configs": [
            {
                "config_name": name,
                "data_files": [{"split": s, "path": f"{name}/{s}-*"} for s in sizes],
            }
            for name, _, sizes in configs
        ],
        "dataset_info": [
            {
                "config_name": name,
                "features": features._to_yaml_list(),
                "splits": [
                    {"name": s, "num_bytes": size, "num_examples": n}
                    for s, (n, size) in sizes.items()
                ],
                "download_size": sum(size for _, size in sizes.values()),
                "dataset_size": sum(size for _, size in sizes.values()),
            }
            for name, features, sizes in configs
        ],
    }
    header = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True)
    return f"---\n{header}---\n\n# {pretty_name}\n\nBuilt by the tests from real samples.\n"


def build_repos(root: Path) -> dict[str, HubRepo]:
    """Both repos under ``root`` (skips when ../shared/real is absent)."""
    import datasets

    datasets.disable_progress_bars()
    return {repo.repo_id: repo for repo in (build_lexglue(root), build_imdb(root))}


# ---------------------------------------------------------------------------------------------
# The server


class LoopbackHub:
    """The hub API on 127.0.0.1 for a set of repos (start/stop, or use as a context manager)."""

    def __init__(self, repos: dict[str, HubRepo]):
        self.repos = repos
        self.requests: list[str] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> LoopbackHub:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> LoopbackHub:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- what the routes answer ----------------------------------------------------------------

    def repo_at(self, repo_id: str, revision: str) -> HubRepo | None:
        repo = self.repos.get(repo_id)
        if repo is None or revision not in ("main", repo.commit):
            return None
        return repo

    def entry(self, repo: HubRepo, path: str, expand: bool) -> dict:
        data = repo.files[path].read_bytes()
        out = {"type": "file", "oid": git_blob_id(data), "size": len(data), "path": path}
        if is_lfs(path):
            out["lfs"] = {"oid": hashlib.sha256(data).hexdigest(), "size": len(data),
                          "pointerSize": 134}  # fmt: skip
            out["oid"] = git_blob_id(f"lfs pointer {out['lfs']['oid']}".encode())
        if expand:
            out["lastCommit"] = {"id": repo.commit, "title": "data", "date": _DATE}
        return out

    def tree(self, repo: HubRepo, base: str, recursive: bool, expand: bool) -> list[dict] | None:
        base = base.strip("/")
        prefix = f"{base}/" if base else ""
        if base and base not in repo.files and not any(p.startswith(prefix) for p in repo.files):
            return None
        entries: dict[str, dict] = {}
        for path in sorted(repo.files):
            if not path.startswith(prefix):
                continue
            rest = path[len(prefix) :]
            if recursive or "/" not in rest:
                parts = path.split("/")
                if recursive:  # the hub lists the folders too
                    for depth in range(len(prefix.split("/")) if prefix else 1, len(parts)):
                        folder = "/".join(parts[:depth])
                        entries.setdefault(folder, _folder(folder))
                entries[path] = self.entry(repo, path, expand)
            else:
                folder = prefix + rest.split("/")[0]
                entries.setdefault(folder, _folder(folder))
        return list(entries.values())

    def info(self, repo: HubRepo) -> dict:
        return {
            "_id": hashlib.md5(repo.repo_id.encode()).hexdigest()[:24],
            "id": repo.repo_id,
            "author": repo.repo_id.split("/")[0],
            "sha": repo.commit,
            "lastModified": _DATE,
            "private": False,
            "gated": False,
            "disabled": False,
            "downloads": 0,
            "likes": 0,
            "tags": [],
            "cardData": {},
            "siblings": [{"rfilename": p} for p in sorted(repo.files)],
            "createdAt": _DATE,
            "usedStorage": sum(f.stat().st_size for f in repo.files.values()),
        }


_DATE = "2024-01-01T00:00:00.000Z"


def _folder(path: str) -> dict:
    return {
        "type": "directory",
        "oid": hashlib.sha1(path.encode()).hexdigest(),
        "size": 0,
        "path": path,
    }


def _handler(hub: LoopbackHub):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:  # quiet: the requests are kept in hub.requests
            pass

        def do_HEAD(self) -> None:
            self._route(head=True)

        def do_GET(self) -> None:
            self._route(head=False)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode()
            self._route(head=False, form=parse_qs(body))

        def _route(self, head: bool, form: dict | None = None) -> None:
            url = urlsplit(self.path)
            query = parse_qs(url.query)
            hub.requests.append(f"{self.command} {unquote(url.path)}")
            parts = [unquote(p) for p in url.path.split("/")]
            # /api/datasets/<owner>/<name>[/revision/<rev> | /tree/<rev>/<path> | /paths-info/<rev>]
            if parts[1:3] == ["api", "datasets"] and len(parts) >= 5:
                repo_id = "/".join(parts[3:5])
                rest = parts[5:]
                if not rest or rest[0] == "revision":
                    revision = rest[1] if len(rest) > 1 else "main"
                    repo = hub.repo_at(repo_id, revision)
                    return self._json(hub.info(repo)) if repo else self._missing(repo_id)
                if rest[0] in ("tree", "paths-info") and len(rest) >= 2:
                    repo = hub.repo_at(repo_id, rest[1])
                    if repo is None:
                        return self._missing(repo_id)
                    if rest[0] == "tree":
                        expand = query.get("expand", ["false"])[0] == "true"
                        recursive = query.get("recursive", ["false"])[0] == "true"
                        listing = hub.tree(repo, "/".join(rest[2:]), recursive, expand)
                        if listing is None:
                            return self._error(404, "EntryNotFound", "no such path")
                        return self._json(listing)
                    paths = (form or {}).get("paths", [])
                    expand = (form or {}).get("expand", ["false"])[0] in ("true", "True")
                    return self._json(
                        [hub.entry(repo, p, expand) for p in paths if p in repo.files]
                    )
            # /datasets/<owner>/<name>/resolve/<rev>/<path>
            if parts[1:2] == ["datasets"] and len(parts) >= 7 and parts[4] == "resolve":
                repo_id = "/".join(parts[2:4])
                repo = hub.repo_at(repo_id, parts[5])
                if repo is None:
                    return self._missing(repo_id)
                path = "/".join(parts[6:])
                if path not in repo.files:
                    return self._error(404, "EntryNotFound", f"{path} not found")
                return self._file(repo, path, head)
            return self._error(404, "RepoNotFound", "unknown route")

        def _file(self, repo: HubRepo, path: str, head: bool) -> None:
            data = repo.files[path].read_bytes()
            entry = hub.entry(repo, path, expand=False)
            etag = entry["lfs"]["oid"] if "lfs" in entry else entry["oid"]
            start, end = 0, len(data)
            status = 200
            wanted = self.headers.get("Range")
            if wanted and wanted.startswith("bytes="):
                first, _, last = wanted[6:].partition("-")
                if first == "":  # suffix range: the last N bytes
                    start = max(0, len(data) - int(last))
                else:
                    start = int(first)
                    end = min(len(data), int(last) + 1) if last else len(data)
                status = 206
            body = data[start:end]
            self.send_response(status)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Accept-Ranges", "bytes")
            self.send_header("ETag", f'"{etag}"')
            self.send_header("X-Repo-Commit", repo.commit)
            self.send_header("Last-Modified", formatdate(usegmt=True))
            if "lfs" in entry:
                self.send_header("X-Linked-ETag", f'"{etag}"')
                self.send_header("X-Linked-Size", str(len(data)))
            if status == 206:
                self.send_header("Content-Range", f"bytes {start}-{end - 1}/{len(data)}")
            self.end_headers()
            if not head:
                self.wfile.write(body)

        def _json(self, payload) -> None:
            body = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _missing(self, repo_id: str) -> None:
            self._error(404, "RevisionNotFound" if repo_id in hub.repos else "RepoNotFound",
                        f"{repo_id}: no such repo or revision")  # fmt: skip

        def _error(self, status: int, code: str, message: str) -> None:
            body = json.dumps({"error": message}).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("X-Error-Code", code)
            self.send_header("X-Error-Message", message)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

    return Handler
