"""Spec RAG benchmark: search latency on >= 50k chunks, ingestion speed, store size, memory.

The 50k-chunk store is the generated corpus (tests/spec_rag/corpus.py) replicated into
`--specs` specs with renumbered clauses; its vectors are RANDOM unit vectors (384-d), not
model embeddings, so the store fills in minutes. Latency is measured side by side in one run:
search with and without a spec filter (query vector supplied, so it excludes embedding), and
the query embedding time of the local MiniLM model separately. Ingestion speed (pages/s) is
the real pipeline on a generated PDF, without and with embedding.

Retrieval quality: recall@1 and recall@5 of BM25, vectors and their fusion over the labelled
questions (the PDF corpus plus the generated real-structure DOCX); more than half of them target
letter-suffixed clauses, formulas and tables. `--embedders local,onnx-int8,onnx` compares the
offline MiniLM-L6 (torch) with the same model quantised to int8 and with paraphrase-MiniLM-L3,
both on ONNX Runtime: recall and query embedding time each, then embedding speed with the same
chunks through each embedder, interleaved, in steps of 64 and of 512 (each step is sorted by
length inside the embedder).

    .venv/bin/python bench/spec_rag_bench.py [--chunks 50000] [--specs 20] [--queries 200]
    .venv/bin/python bench/spec_rag_bench.py --only recall

`--only real --docx DIR`: real Rel-18 .docx specs (not part of the repository; the files named
in bench/spec_rag_real_questions.json) through the `mcp-spec-rag` console script over stdio, as
a client starts it: ingest MB/s with vectors on, then every question of that file asked with
`search` (top_k=5), recall@1/@5 per spec, and the client-side latency p50/p95 of `search`
(query embedding included) beside the load average.

    PYTHONPATH=. .venv/bin/python bench/spec_rag_bench.py --only real --docx DIR [--rounds 3]

`--embedder local,onnx,onnx@48` compares embedders side by side in one run: one server each,
ingests and questions alternating between them (`NAME@N`: stored chunks read from their first
N word pieces, $SPEC_RAG_PASSAGE_TOKENS; `default`: no --embedder). `--baseline DIR` adds a
server running another checkout's code (e.g. the main branch) with its default embedder, first
in each alternation: before and after measured under the same load.

`--only stages --docx DIR`: the same specs ingested in process, and the milliseconds of each
stage of a search (catalog, query embedding, BM25, ChromaDB, fusion, deepest clause, JSON).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import copy
import dataclasses
import json
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
import numpy as np
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from silicon_agent.servers.core.workspace import Workspace
from silicon_agent.servers.spec_rag.api import SpecLibrary
from silicon_agent.servers.spec_rag.chunking import SpecContent, build
from silicon_agent.servers.spec_rag.embedders import (
    EMBEDDER_ENV,
    PASSAGE_TOKENS_ENV,
    Embedder,
    LocalMiniLM,
    make_embedder,
)
from silicon_agent.servers.spec_rag.lexical_tokens import query_tokens
from silicon_agent.servers.spec_rag.memory import rss_mb
from silicon_agent.servers.spec_rag.pdf_reader import read_pdf
from tests.spec_rag.corpus import QUESTIONS, SPEC_36211, SPEC_36212, write_pdf
from tests.spec_rag.docx_writer import QUESTIONS as STRUCTURE_QUESTIONS
from tests.spec_rag.docx_writer import write_real_docx

DIM = 384


def _renumber(content: SpecContent, spec: str, replica: int) -> SpecContent:
    """A copy of a parsed spec under another key with clauses moved to 100+replica.x.y."""
    out = copy.deepcopy(content)
    out.doc = dataclasses.replace(content.doc, spec=spec, blocks=[])
    prefix = f"{100 + replica}."
    for clause in out.clauses:
        clause.clause = prefix + clause.clause
        clause.path = clause.path.replace("TS 36.21", f"TS {spec} r{replica} ")
    for table in out.tables:
        table.table_id = prefix + table.table_id
        table.clause = prefix + table.clause
    for chunk in out.chunks:
        chunk.clause = prefix + chunk.clause
        chunk.text = f"{chunk.text} (replica {replica})"
    return out


def _merge(parts: list[SpecContent], spec: str) -> SpecContent:
    merged = SpecContent(doc=dataclasses.replace(parts[0].doc, spec=spec, blocks=[]))
    for part in parts:
        merged.clauses.extend(part.clauses)
        merged.tables.extend(part.tables)
        merged.chunks.extend(part.chunks)
    for seq, clause in enumerate(merged.clauses):
        clause.seq = seq
    return merged


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _dir_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6


def fill_store(library: SpecLibrary, base: list[SpecContent], chunks: int, specs: int) -> int:
    per_replica = sum(len(c.chunks) for c in base)
    replicas = -(-chunks // per_replica)
    per_spec = -(-replicas // specs)
    rng = np.random.default_rng(1)
    total = 0
    replica = 0
    for s in range(specs):
        key = f"36.{900 + s}"
        parts = []
        for _ in range(per_spec):
            if replica >= replicas:
                break
            parts.extend(_renumber(c, key, replica * len(base) + i) for i, c in enumerate(base))
            replica += 1
        if not parts:
            break
        content = _merge(parts, key)
        ids = library.catalog.replace(content, f"bench/{key}.pdf", "0" * 64, "bench:random")
        vectors = rng.standard_normal((len(ids), DIM)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        library.vectors.replace(key, ids, vectors)
        total += len(ids)
        print(f"  spec {key}: {len(ids)} chunks (total {total})", flush=True)
    return total


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=50_000)
    parser.add_argument("--specs", type=int, default=20)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--pages", type=int, default=200, help="filler pages for ingest speed")
    parser.add_argument(
        "--only", choices=("recall", "memory", "search", "real", "stages", "all"), default="all"
    )
    parser.add_argument("--docx", type=Path, help="folder of the real .docx specs (--only real)")
    parser.add_argument("--rounds", type=int, default=3, help="searches per question (real)")
    parser.add_argument(
        "--embedder", default="default", help="the servers' --embedder, comma-separated (real)"
    )
    parser.add_argument(
        "--baseline", type=Path, help="(real) also a server of this checkout, default embedder"
    )
    parser.add_argument("--filler", type=int, default=1500, help="clauses per large DOCX")
    parser.add_argument(
        "--embedders", default="local,onnx-int8,onnx", help="compared for recall and speed"
    )
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="spec-rag-bench-"))
    if args.only in ("real", "stages"):
        try:
            if args.only == "stages":
                stages(root, args)
            else:
                anyio.run(real_specs, root, args)
        finally:
            shutil.rmtree(root, ignore_errors=True)
        return
    try:
        if args.only in ("memory", "all"):
            memory(root, args.filler)
        if args.only in ("recall", "all"):
            recall(root, args.embedders.split(","))
        if args.only in ("search", "all"):
            run(root, args)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def run(root: Path, args: argparse.Namespace) -> None:
    ws = Workspace.open(root)
    print("== ingestion speed (real pipeline on generated PDFs) ==")
    pdf = write_pdf(
        SPEC_36212, root / "ingest.pdf", filler_clauses=args.pages, filler_page_breaks=True
    )
    dense = write_pdf(SPEC_36212, root / "dense.pdf", filler_clauses=args.pages // 2)
    for name, path in (("sparse pages", pdf), ("dense pages", dense)):
        lib = SpecLibrary(ws, store_dir=root / f"store-{name[:5]}", embedder=None)
        t0 = time.perf_counter()
        result = asyncio.run(lib.ingest(path.name))
        seconds = time.perf_counter() - t0
        print(
            f"  {name}: {result.pages} pages, {result.chunks} chunks in {seconds:.1f} s "
            f"= {result.pages / seconds:.1f} pages/s (BM25 only, no embedding)"
        )
    minilm = LocalMiniLM()
    minilm.embed(["warm up"])
    lib = SpecLibrary(ws, store_dir=root / "store-embed", embedder=minilm)
    small = write_pdf(SPEC_36212, root / "small.pdf")
    t0 = time.perf_counter()
    result = asyncio.run(lib.ingest(small.name))
    seconds = time.perf_counter() - t0
    print(
        f"  with local MiniLM embedding: {result.pages} pages, {result.chunks} chunks in "
        f"{seconds:.1f} s = {result.pages / seconds:.2f} pages/s, "
        f"{result.chunks / seconds:.1f} chunks/s"
    )

    print(f"== store of >= {args.chunks} chunks (random {DIM}-d vectors) ==")
    base = [
        build(read_pdf(write_pdf(s, root / f"{s.number}.pdf"))) for s in (SPEC_36212, SPEC_36211)
    ]
    store = root / "store-big"
    library = SpecLibrary(ws, store_dir=store, embedder=None)
    library.embedder = _Named("bench:random")  # search uses the stored vectors
    t0 = time.perf_counter()
    total = fill_store(library, base, args.chunks, args.specs)
    fill_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    library.lexical.warm()
    bm25_build = time.perf_counter() - t0
    print(f"  filled {total} chunks in {fill_s:.0f} s; BM25 index built in {bm25_build:.1f} s")
    print(
        f"  store size on disk: {_dir_mb(store):.0f} MB "
        f"(catalog {(store / 'catalog.sqlite').stat().st_size / 1e6:.0f} MB, "
        f"chroma {_dir_mb(store / 'chroma'):.0f} MB, bm25 {_dir_mb(store / 'bm25'):.0f} MB)"
    )

    rng = np.random.default_rng(2)
    questions = [q for q, _, _ in QUESTIONS]
    specs = [d.spec for d in library.catalog.docs()]
    modes = {
        "no filter": lambda q, v: library.search_sync(q, 10, query_vector=v),
        "spec filter": lambda q, v: library.search_sync(
            q, 10, spec=specs[len(q) % len(specs)], query_vector=v
        ),
        "type filter": lambda q, v: library.search_sync(
            q, 10, content_type="table", query_vector=v
        ),
    }
    for fn in modes.values():
        fn("warm up", _unit(rng))
    latencies: dict[str, list[float]] = {m: [] for m in modes}
    for n in range(args.queries):
        q = questions[n % len(questions)]
        v = _unit(rng)
        for mode, fn in modes.items():  # side by side, interleaved
            result = fn(q, v)
            assert result.status in ("ok", "no_match"), result
            latencies[mode].append(result.search_ms or 0.0)
    print(f"  search latency over {args.queries} queries, top_k=10, excluding query embedding:")
    for mode, values in latencies.items():
        print(
            f"    {mode:<12} p50 {statistics.median(values):6.2f} ms   "
            f"p95 {_pct(values, 0.95):6.2f} ms"
        )
    # the alternative the per-spec collections avoid: a where= filter on one big collection
    everything = library.vectors._named(f"all-{DIM}")
    where_ms = []
    for n in range(min(50, args.queries)):
        t0 = time.perf_counter()
        everything.query(
            query_embeddings=[_unit(rng)],
            n_results=50,
            where={"spec": specs[n % len(specs)]},
            include=["distances"],
        )
        where_ms.append((time.perf_counter() - t0) * 1000)
    per_spec_ms = []
    for n in range(min(50, args.queries)):
        t0 = time.perf_counter()
        library.vectors.query(_unit(rng), [specs[n % len(specs)]], 50)
        per_spec_ms.append((time.perf_counter() - t0) * 1000)
    print(
        f"  vector query with spec filter: per-spec collection p50 "
        f"{statistics.median(per_spec_ms):.2f} ms vs ChromaDB where= p50 "
        f"{statistics.median(where_ms):.2f} ms (ratio "
        f"{statistics.median(where_ms) / statistics.median(per_spec_ms):.1f}x)"
    )
    query_embedding(minilm, questions, "query embedding (local MiniLM, CPU)")
    ratio = statistics.median(latencies["spec filter"]) / statistics.median(latencies["no filter"])
    print(f"  spec filter / no filter p50 ratio: {ratio:.2f}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"  peak memory (max RSS of this process, model included): {peak:.0f} MB")


def query_embedding(embedder: Embedder, questions: list[str], label: str) -> None:
    """One query at a time, as search embeds it."""
    spent = []
    for q in questions:
        t0 = time.perf_counter()
        embedder.embed([q])
        spent.append((time.perf_counter() - t0) * 1000)
    print(f"  {label}: p50 {statistics.median(spent):.1f} ms   p95 {_pct(spent, 0.95):.1f} ms")


# the PDF corpus's questions that target formulas and tables (the rest are prose)
_STRUCTURE = {
    "the polynomial of CRC-24A": "formula",
    "generator polynomial gCRC24B for code block CRC": "formula",
    "CRC16 generator polynomial": "formula",
    "how many filler bits are inserted in segmentation": "formula",
    "quadratic permutation polynomial interleaver f1 f2 mod K": "formula",
    "transfer function of the 8-state constituent code of the turbo encoder": "formula",
    "which coding scheme and rate is used for the BCH transport channel": "table",
    "Table 5.1.3-3": "table",
    "inter-column permutation pattern": "table",
    "mapping of uplink transport channels to physical channels": "table",
    "which physical channel carries the DL-SCH and the BCH": "table",
    "QPSK constellation mapping table of bit pairs": "table",
    "16QAM amplitudes": "table",
    "TDD uplink-downlink configurations and switch point periodicity": "table",
    "which modulation schemes are allowed for the PDSCH": "table",
}


def memory(root: Path, filler: int) -> None:
    """RSS after ingesting three large generated DOCX specs and re-ingesting one (BM25 only,
    so the figure is the store's and the reader's, not the embedding model's)."""
    ws_root = root / "memory"
    ws_root.mkdir()
    library = SpecLibrary(Workspace.open(ws_root), embedder=None)
    print(f"== memory: three generated DOCX specs of {filler} clauses each ==")
    print(f"  RSS at start: {rss_mb():.0f} MB")
    for n, spec in enumerate(("36.901", "36.902", "36.903")):
        path = write_real_docx(ws_root / f"big{n}.docx", spec=spec, filler=filler)
        t0 = time.perf_counter()
        result = asyncio.run(library.ingest(path.name))
        seconds = time.perf_counter() - t0
        print(
            f"  ingest {result.spec}: {result.status}, {result.clauses} clauses, {result.chunks} "
            f"chunks in {seconds:.1f} s; RSS {rss_mb():.0f} MB"
        )
    for attempt in (1, 2):
        write_real_docx(ws_root / "big0.docx", spec="36.901", filler=filler + attempt)
        result = asyncio.run(library.ingest("big0.docx", replace=True))
        print(f"  re-ingest {result.spec} ({result.status}) #{attempt}: RSS {rss_mb():.0f} MB")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"  peak RSS {peak:.0f} MB")


def recall(root: Path, embedder_names: list[str]) -> None:
    ws_root = root / "recall"
    ws_root.mkdir()
    for spec in (SPEC_36212, SPEC_36211):
        write_pdf(spec, ws_root / f"{spec.number}.pdf")
    write_real_docx(ws_root / "36306.docx")
    embedders = []
    for name in embedder_names:
        embedder = make_embedder(name)
        assert embedder is not None
        texts = recall_with(ws_root, embedder)
        embedders.append(embedder)
    embedding_speed(embedders, texts)


def recall_with(ws_root: Path, minilm: Embedder) -> list[str]:
    """Recall@1/@5 of the three retrievers over the labelled questions."""
    minilm.embed(["warm up"])
    library = SpecLibrary(
        Workspace.open(ws_root), store_dir=ws_root / minilm.name.replace(":", "-"), embedder=minilm
    )
    t0 = time.perf_counter()
    for name in ("36.212.pdf", "36.211.pdf", "36306.docx"):
        result = asyncio.run(library.ingest(name))
        assert result.status == "ingested", result
    print(f"== {minilm.name}: corpus ingested in {time.perf_counter() - t0:.1f} s ==")
    questions = [(q, s, c, _STRUCTURE.get(q, "prose")) for q, s, c in QUESTIONS]
    questions = questions + STRUCTURE_QUESTIONS
    structured = [q for q in questions if q[3] != "prose"]
    vectors = minilm.embed([q for q, _, _, _ in questions])
    query_embedding(minilm, [q for q, _, _, _ in questions], "query embedding")
    specs = [d.spec for d in library.catalog.docs()]
    rankers = {
        "bm25": lambda q, v: [i for i, _ in library.lexical.search(query_tokens(q), 10)],
        "vector": lambda q, v: [i for i, _ in library.vectors.query(v, specs, 10)],
        "fusion": lambda q, v: [
            h.chunk_id for h in library.search_sync(q, 10, query_vector=v).hits
        ],
    }
    print(
        f"== recall over {len(questions)} labelled questions "
        f"({len(structured)} on letter clauses, formulas and tables) =="
    )
    for name, rank in rankers.items():
        hits: dict[str, list[int | None]] = {"all": [], "structures": []}
        for (q, spec, clause, kind), v in zip(questions, vectors, strict=True):
            ids = rank(q, v)
            rows = library.catalog.chunks(ids)
            labels = [(rows[i].spec, rows[i].clause) for i in ids if i in rows]
            pos = next((n for n, lab in enumerate(labels, 1) if lab == (spec, clause)), None)
            hits["all"].append(pos)
            if kind != "prose":
                hits["structures"].append(pos)
        line = []
        for part, found in hits.items():
            r1 = sum(1 for p in found if p is not None and p <= 1) / len(found)
            r5 = sum(1 for p in found if p is not None and p <= 5) / len(found)
            line.append(f"{part}: recall@1 {r1:.2f} recall@5 {r5:.2f}")
        print(f"  {name:<7} " + "   ".join(line))
    return [f"{r[1]}\n{r[2]}" for spec in specs for r in library.catalog.chunk_texts(spec)]


def embedding_speed(embedders: list[Embedder], texts: list[str]) -> None:
    """The same chunks through each embedder, interleaved step by step so load hits all alike."""
    for step in (64, 512):
        seconds = dict.fromkeys((e.name for e in embedders), 0.0)
        for start in range(0, len(texts), step):
            for embedder in embedders:
                t0 = time.perf_counter()
                embedder.embed(texts[start : start + step])
                seconds[embedder.name] += time.perf_counter() - t0
        first = seconds[embedders[0].name]
        print(f"== embedding {len(texts)} chunks in steps of {step}, side by side ==")
        for name, spent in seconds.items():
            print(
                f"  {name:<34} {len(texts) / spent:6.1f} chunks/s   "
                f"{1000 * spent / len(texts):6.1f} ms/chunk   speed-up {first / spent:.2f}x"
            )


REAL_QUESTIONS = Path(__file__).with_name("spec_rag_real_questions.json")
BASELINE = "baseline"


def _load() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


async def real_specs(root: Path, args: argparse.Namespace) -> None:
    """Ingest, recall and search latency over MCP stdio on the real specs; with several
    `--embedder` names (comma-separated), one server each, ingests and questions alternating
    between them so the machine's load hits all alike."""
    if args.docx is None:
        raise SystemExit("--only real needs --docx DIR")
    data = json.loads(REAL_QUESTIONS.read_text())
    names = args.embedder.split(",")
    if args.baseline is not None:
        names.insert(0, BASELINE)
    script = Path(sys.executable).with_name("mcp-spec-rag")
    runs = {name: _RealRun() for name in names}
    async with contextlib.AsyncExitStack() as stack:
        clients = {}
        for name in names:
            workspace = root / f"ws-{name.replace(':', '-').replace('@', '-')}"
            workspace.mkdir()
            for file in data["files"].values():
                shutil.copy(args.docx / file, workspace / file)
            # NAME@N: the embedder NAME reading each stored chunk's first N word pieces
            embedder, _, tokens = name.partition("@")
            env = {k: v for k, v in os.environ.items() if k != EMBEDDER_ENV}
            if tokens:
                env[PASSAGE_TOKENS_ENV] = tokens
            if name == BASELINE:  # another checkout's code, its default embedder
                env["PYTHONPATH"] = str(args.baseline.resolve())
                env["PYTHONDONTWRITEBYTECODE"] = "1"
            chosen = [] if embedder in ("default", BASELINE) else ["--embedder", embedder]
            params = StdioServerParameters(
                command=str(script),
                args=["--workspace", str(workspace), *chosen],
                env=env,
                cwd=str(workspace),
            )
            clients[name] = await stack.enter_async_context(Client(params))
        print(f"== real specs over MCP stdio ({script.name} --embedder {', '.join(names)}) ==")
        for spec, file in data["files"].items():
            size = (args.docx / file).stat().st_size / 1e6
            for name, client in clients.items():
                t0 = time.perf_counter()
                done = (await client.call_tool("ingest", {"path": file})).structured_content
                wall = time.perf_counter() - t0
                runs[name].ingest_mb += size
                runs[name].ingest_s += wall
                print(
                    f"  [{name}] ingest {spec} ({size:.2f} MB): {done['status']}, "
                    f"{done['chunks']} chunks, vectors {done['vectors']}, server "
                    f"{done['seconds']:.1f} s, client {wall:.1f} s = {size / wall * 10:.2f} MB "
                    f"per 10 s   [load {_load()}]"
                )
        for round_ in range(args.rounds):
            for spec, clause, question in data["questions"]:
                for name, client in clients.items():
                    t0 = time.perf_counter()
                    found = await client.call_tool("search", {"query": question, "top_k": 5})
                    ms = (time.perf_counter() - t0) * 1000
                    runs[name].asked(round_, spec, clause, question, ms, found.structured_content)
    for name, run in runs.items():
        run.report(name, len(data["questions"]))


@dataclasses.dataclass
class _RealRun:
    """What one server of `real_specs` measured."""

    ingest_mb: float = 0.0
    ingest_s: float = 0.0
    first: float | None = None
    spent: list[float] = dataclasses.field(default_factory=list)
    by_round: dict[int, list[float]] = dataclasses.field(default_factory=dict)
    embed: list[float] = dataclasses.field(default_factory=list)
    ranks: dict[str, list[int | None]] = dataclasses.field(default_factory=dict)
    misses: list[tuple[str, str, str, int | None, list[str]]] = dataclasses.field(
        default_factory=list
    )

    def asked(
        self, round_: int, spec: str, clause: str, question: str, ms: float, body: dict
    ) -> None:
        if self.first is None:
            self.first = ms
        else:
            self.spent.append(ms)
            self.by_round.setdefault(round_, []).append(ms)
        if round_ == 0 and body.get("embed_ms") is not None:
            self.embed.append(body["embed_ms"])
        if round_:
            return
        cited = [(h["citation"]["spec"], h["citation"]["clause"]) for h in body["hits"]]
        pos = next((n for n, c in enumerate(cited, 1) if c == (f"TS {spec}", clause)), None)
        self.ranks.setdefault(spec, []).append(pos)
        if pos is None or pos > 1:
            self.misses.append((spec, clause, question, pos, [c for _, c in cited]))

    def report(self, name: str, questions: int) -> None:
        print(f"== {name} ==")
        if self.ingest_s:
            print(
                f"  ingest {self.ingest_mb:.2f} MB in {self.ingest_s:.1f} s = "
                f"{self.ingest_mb / self.ingest_s * 10:.2f} MB per 10 s"
            )
        print(f"  recall over {questions} questions (top_k=5):")
        every = [p for found in self.ranks.values() for p in found]
        for label, found in [*self.ranks.items(), ("all", every)]:
            r1 = sum(1 for p in found if p == 1) / len(found)
            r5 = sum(1 for p in found if p is not None and p <= 5) / len(found)
            print(f"    {label:<7} n={len(found):<3} recall@1 {r1:.2f}   recall@5 {r5:.2f}")
        for spec, clause, question, pos, cited in self.misses:
            where = "miss" if pos is None else f"@{pos}"
            print(f"    {where} {spec} {clause}: {question!r} -> {cited}")
        spent = self.spent
        print(
            f"  search over MCP, client-side, {len(spent)} calls after the first "
            f"({self.first:.0f} ms): p50 {statistics.median(spent):.1f} ms   "
            f"p95 {_pct(spent, 0.95):.1f} ms   max {max(spent):.1f} ms   [load {_load()}]"
        )
        again = [ms for r, part in self.by_round.items() if r for ms in part]
        for label, part in (("first ask", self.by_round.get(0, [])), ("asked again", again)):
            if part:
                print(
                    f"    {label:<11} n={len(part):<3} p50 {statistics.median(part):.1f} ms   "
                    f"p95 {_pct(part, 0.95):.1f} ms"
                )
        if self.embed:
            print(
                "  query embedding inside the server (first asks): "
                f"p50 {statistics.median(self.embed):.1f} ms   "
                f"p95 {_pct(self.embed, 0.95):.1f} ms"
            )


def stages(root: Path, args: argparse.Namespace) -> None:
    """Where a search's time goes inside the server, stage by stage, on the real specs
    ingested in process (each question asked once, so no vector comes from the cache)."""
    if args.docx is None:
        raise SystemExit("--only stages needs --docx DIR")
    from silicon_agent.servers.spec_rag.api import _rrf, _window
    from silicon_agent.servers.spec_rag.deepest import deepest_first, pointed_to

    data = json.loads(REAL_QUESTIONS.read_text())
    for name in data["files"].values():
        shutil.copy(args.docx / name, root / name)
    library = SpecLibrary(
        Workspace.open(root),
        embedder=make_embedder(None if args.embedder == "default" else args.embedder),
    )
    for name in data["files"].values():
        asyncio.run(library.ingest(name))
    library.warm()
    assert library.embedder is not None
    spent: dict[str, list[float]] = {}

    def timed(stage: str, t0: float) -> float:
        now = time.perf_counter()
        spent.setdefault(stage, []).append((now - t0) * 1000)
        return now

    for _, _, question in data["questions"]:
        t = time.perf_counter()
        docs = [d.spec for d in library.catalog.docs()]
        t = timed("catalog docs", t)
        vector = library.embedder.embed([question])[0]
        t = timed("query embedding", t)
        lexical = library.lexical.search(query_tokens(question), 50)
        t = timed("bm25", t)
        vector_hits = library.vectors.query(vector, docs, 50, True)
        t = timed("chroma query", t)
        rows = library.catalog.chunks(list({i for i, _ in lexical} | {i for i, _ in vector_hits}))
        t = timed("catalog rows", t)
        fused = [(c, s) for c, s in _rrf(lexical, vector_hits) if c in rows]
        t = timed("fusion", t)
        deepest_first(
            fused,
            lambda item, rows=rows: (rows[item[0]].spec, rows[item[0]].clause),
            _window(5),
            lambda item, rows=rows, q=question: pointed_to(
                rows[item[0]].text, q, rows[item[0]].clause
            ),
        )
        t = timed("deepest clause", t)
        found = library.search_sync(question, 5, query_vector=vector)
        t = timed("search_sync without embedding", t)
        found.model_dump_json()
        timed("result to JSON", t)
    print(f"== in-server stages of one search ({len(data['questions'])} questions) ==")
    for stage, values in spent.items():
        print(
            f"  {stage:<30} p50 {statistics.median(values):7.2f} ms   "
            f"p95 {_pct(values, 0.95):7.2f} ms"
        )
    print(f"  [load {_load()}]")


class _Named:
    """Stands in for the embedder whose name the random vectors were stored under."""

    def __init__(self, name: str):
        self.name = name

    def embed(self, texts: list[str]) -> np.ndarray:
        raise RuntimeError("the benchmark always supplies query vectors")


def _unit(rng: np.random.Generator) -> np.ndarray:
    v = rng.standard_normal(DIM).astype(np.float32)
    return v / np.linalg.norm(v)


if __name__ == "__main__":
    main()
