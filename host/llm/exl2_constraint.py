"""The JSON-schema constraint of the in-process ExLlamaV2 provider, free of exllamav2 and CUDA:
the model's vocabulary as the text each token adds, lm-format-enforcer's parser over it, and
that parser wrapped in exllamav2's sampling-filter interface (duck-typed: exllamav2 0.3 checks
no base class, so the filter runs in tests without exllamav2 installed).

Why not lm-format-enforcer's own exllamav2 integration: it takes each token's string from
exllamav2's piece list and decodes the generated sequence with the tokenizer. The two disagree
for byte-level BPE (a lone byte of a multi-byte character is the piece U+FFFD, a different text
once decoded), pieces that decode to nothing sit at the root of its prefix tree and are allowed
at every step, and on a disagreement the parser gives up and allows only end-of-sequence: the
reply stops after a few tokens, incomplete. Here every allowed token's string is exactly the
text it adds (tokens without one are never offered), the parser and the reply are built from
the same strings, and end-of-sequence is offered only where the schema is complete."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

REPLACEMENT = "\ufffd"


class ConstraintBroken(RuntimeError):
    """The constraint reached a state it must never reach (no allowed token, or the end
    offered before the schema is complete): a bug or a tokenizer it cannot serve."""


class HFTokenizer(Protocol):
    """The part of a `tokenizers.Tokenizer` the vocabulary needs."""

    def get_vocab_size(self, with_added_tokens: bool = True) -> int: ...

    def decode(self, ids: list[int], skip_special_tokens: bool = True) -> str: ...

    def encode(self, sequence: str, add_special_tokens: bool = True) -> Any: ...

    def decode_batch(self, sequences: list[list[int]], skip_special_tokens: bool = True) -> Any: ...

    def get_added_tokens_decoder(self) -> dict[int, Any]: ...


@dataclass
class Vocabulary:
    """What each token adds to the text (None: never offered), and the end-of-sequence ids."""

    pieces: list[str | None]
    eos_ids: frozenset[int]
    _data: Any = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def from_hf(
        cls, tokenizer: HFTokenizer, eos_ids: Iterable[int], exclude: Iterable[int] = ()
    ) -> Vocabulary:
        """Each token's text, read by decoding it after an anchor token and removing the
        anchor's text: decoders that drop a leading space (SentencePiece's Metaspace) or map
        bytes to characters (byte-level BPE) then give the text the token adds mid-reply.
        Left out: special and excluded tokens, tokens that add nothing, and tokens whose text
        is not whole (a byte of a multi-byte character decodes to U+FFFD)."""
        eos = frozenset(int(t) for t in eos_ids)
        skip = set(eos) | {int(t) for t in exclude}
        skip |= {i for i, t in tokenizer.get_added_tokens_decoder().items() if t.special}
        anchor = find_anchor(tokenizer, skip)
        prefix = tokenizer.decode([anchor], skip_special_tokens=False)
        size = tokenizer.get_vocab_size(with_added_tokens=True)
        decoded = tokenizer.decode_batch(
            [[anchor, token] for token in range(size)], skip_special_tokens=False
        )
        pieces: list[str | None] = []
        for token, both in enumerate(decoded):
            text = both[len(prefix) :] if token not in skip and both.startswith(prefix) else ""
            pieces.append(text if text and REPLACEMENT not in text else None)
        if not any(pieces):
            raise ConstraintBroken("the tokenizer has no token the constraint can offer")
        return cls(pieces=pieces, eos_ids=eos)

    def text(self, tokens: Iterable[int]) -> str:
        return "".join(self.pieces[t] or "" for t in tokens if t < len(self.pieces))

    def enforcer_data(self) -> Any:
        """lm-format-enforcer's per-tokenizer tables (built once: a pass over the vocabulary).
        Every token counts as a word start, so the parser takes each token's own string
        rather than re-decoding the word it continues: the same text the reply is built from."""
        with self._lock:
            if self._data is None:
                from lmformatenforcer import TokenEnforcerTokenizerData

                patch_integer_parsing()
                regular = [(i, p, True) for i, p in enumerate(self.pieces) if p]
                data = TokenEnforcerTokenizerData(
                    regular,
                    self.text,
                    sorted(self.eos_ids),
                    False,
                    max(len(self.pieces), max(self.eos_ids, default=0) + 1),
                )
                # The parser's "any character" must be every character a token can add: its
                # default (ASCII letters, digits, some punctuation) or the tokens' first
                # characters (what lm-format-enforcer takes) make a string that meets, say,
                # '~' or '|' drop the character, close every open value and offer the end.
                data.tokenizer_alphabet = "".join(sorted(set("".join(p for _, p, _ in regular))))
                self._data = data
            return self._data


def find_anchor(tokenizer: HFTokenizer, skip: set[int]) -> int:
    """A token that decodes to plain letters or digits and reads the same twice in a row
    ("a" + "a" = "aa"): what follows it decodes as it would mid-text."""
    size = tokenizer.get_vocab_size(with_added_tokens=True)
    for token in range(size):
        if token in skip:
            continue
        text = tokenizer.decode([token], skip_special_tokens=False)
        if text.isascii() and text.isalnum():
            if tokenizer.decode([token, token], skip_special_tokens=False) == text * 2:
                return token
    raise ConstraintBroken("the tokenizer has no plain token to read the others after")


def drop_trailing_commas(text: str) -> str:
    """lm-format-enforcer's object parser lets `}` follow a `,` (its key-or-end stage), so a
    held reply can be `{"a": 1,}`; drop such commas, never touching string contents."""
    out: list[str] = []
    in_string = escaped = False
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == ",":
            rest = text[index + 1 :].lstrip()
            if rest[:1] in ("}", "]"):
                continue
        out.append(char)
    return "".join(out)


def clean_reply(text: str) -> str:
    """A held reply made ready to read: trailing commas dropped and, where it parses, lone
    UTF-16 surrogates (a `\\ud800` escape without its pair: valid JSON, not a valid string)
    replaced by U+FFFD."""
    text = drop_trailing_commas(text)
    try:
        value = json.loads(text, strict=False)
    except json.JSONDecodeError:
        return text  # cut at the token limit: the gateway's repair step sees it
    return json.dumps(_whole_characters(value), ensure_ascii=False)


def _whole_characters(value: Any) -> Any:
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, list):
        return [_whole_characters(v) for v in value]
    if isinstance(value, dict):
        return {_whole_characters(k): _whole_characters(v) for k, v in value.items()}
    return value


_patched = False


def patch_integer_parsing() -> None:
    """lm-format-enforcer 0.11 lets an integer take a fraction or an exponent ("0e33",
    "-0.5", "80E-45": JSON numbers that are not integers). Its number parser is told to leave
    '.', 'e' and 'E' out where the schema asks for an integer (a correction of the library,
    made once per process)."""
    global _patched
    if _patched:
        return
    from lmformatenforcer import jsonschemaparser

    number = jsonschemaparser.NumberParsingState
    original = number.get_allowed_characters

    def allowed_characters(self: Any) -> str:
        chars: str = original(self)
        if not self.allow_floating_point:
            chars = chars.replace(".", "").replace("e", "").replace("E", "")
        return chars

    number.get_allowed_characters = allowed_characters
    _patched = True


class SchemaConstraint:
    """One generation held to a JSON schema: which tokens may come next after those fed."""

    def __init__(self, vocabulary: Vocabulary, schema: dict[str, Any]) -> None:
        from lmformatenforcer import CharacterLevelParserConfig, JsonSchemaParser, TokenEnforcer

        self.vocabulary = vocabulary
        data = vocabulary.enforcer_data()
        # Given at construction: the parser keeps a copy of its alphabet for strings.
        config = CharacterLevelParserConfig(alphabet=data.tokenizer_alphabet)
        self.enforcer = TokenEnforcer(data, JsonSchemaParser(schema, config))
        self.tokens: list[int] = []
        self.ended = False

    def begin(self) -> None:
        self.tokens = []
        self.ended = False

    def feed(self, token: int) -> None:
        if self.ended:
            return
        if token in self.vocabulary.eos_ids:
            self.ended = True
            return
        self.tokens.append(int(token))

    def allowed(self) -> set[int]:
        if self.ended:
            return set(self.vocabulary.eos_ids)
        from lmformatenforcer.characterlevelparser import ForceStopParser

        allowed = set(self.enforcer.get_allowed_tokens(self.tokens).allowed_tokens)
        parser = self.enforcer.prefix_states[tuple(self.tokens)].parser
        if isinstance(parser, ForceStopParser):
            raise ConstraintBroken(f"the parser rejected the reply so far: {self.text()!r}"[:300])
        if not allowed:
            raise ConstraintBroken(f"no token may follow {self.text()!r}"[:300])
        if allowed & self.vocabulary.eos_ids and not (parser.can_end() and self._whole()):
            raise ConstraintBroken(f"the end was offered after {self.text()!r}"[:300])
        return allowed

    def _whole(self) -> bool:
        try:
            json.loads(drop_trailing_commas(self.text()), strict=False)
        except json.JSONDecodeError:
            return False
        return True

    def complete(self) -> bool:
        """Whether the reply so far is a whole answer to the schema."""
        self.enforcer.get_allowed_tokens(self.tokens)
        return bool(self.enforcer.prefix_states[tuple(self.tokens)].parser.can_end())

    def text(self) -> str:
        return self.vocabulary.text(self.tokens)


class ConstraintFilter:
    """A `SchemaConstraint` as an exllamav2 0.3 sampling filter (`ExLlamaV2Filter`'s interface:
    begin/feed/next, next giving (pass_tokens, end_tokens) as sets, evaluated on the
    generator's background pool while the GPU runs the forward pass)."""

    allow_return_type_list = True

    def __init__(self, constraint: SchemaConstraint, model: Any = None, tokenizer: Any = None):
        self.constraint = constraint
        self.model = model
        self.tokenizer = tokenizer
        self.sequence_str = ""
        self.background_result: Future[Any] | None = None

    def clone(self, c: Any = None) -> ConstraintFilter:
        return self  # one job per filter: nothing to copy

    def begin(self, prefix_str: str = "") -> None:
        self.constraint.begin()

    def feed(self, token: Any) -> None:
        # The dynamic generator feeds a (1, 1) tensor; older paths an int.
        value = token.reshape(-1)[0].item() if hasattr(token, "reshape") else token
        self.constraint.feed(int(value))

    def next(self) -> tuple[set[int], set[int]]:
        return self.constraint.allowed(), set(self.constraint.vocabulary.eos_ids)

    def use_background_worker(self) -> bool:
        return True  # a CPU parser: run it while the GPU does the forward pass

    def can_mask_logits(self) -> bool:
        return False

    def prepare_logit_mask(self) -> bool:
        raise NotImplementedError

    def mask_logits(self, logits: Any) -> Any:
        raise NotImplementedError

    def background_next(self, pool: ThreadPoolExecutor) -> None:
        assert self.background_result is None
        self.background_result = pool.submit(self.next)

    def background_prepare_logit_mask(self, pool: ThreadPoolExecutor) -> None:
        raise NotImplementedError

    def background_drop(self) -> None:
        if self.background_result is not None:
            self.background_result.result()
            self.background_result = None

    def get_next(self, mask: bool = False) -> tuple[set[int], set[int]]:
        if self.background_result is None:
            return self.next()
        result: tuple[set[int], set[int]] = self.background_result.result()
        self.background_result = None
        return result
