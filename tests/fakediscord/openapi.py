"""Discord's own OpenAPI description, held against every request body the bot sends.

The spec (``openapi.json``, Discord's public OpenAPI 3.1 description, MIT) lives beside the
repository in ``../shared/data/discord-api-spec/`` and is never copied into it. The fake looks up
the operation of each request (the spec's path templates, such as
``/channels/{channel_id}/messages``, against the request's path; a literal segment such as
``@original`` or ``@me`` wins over a parameter) and validates the JSON body, or the
``payload_json`` part of a multipart body, against the ``application/json`` schema of that
operation's ``requestBody``.

What is adapted when the spec is loaded, and why:

- ``SnowflakeType`` is a string of digits in the spec; discord.py sends snowflakes as JSON
  integers, which Discord accepts, so a snowflake is a digit string *or* a non-negative integer
  below 2**64 (still refused: a negative number, a float, a string that is not digits).
- A ``oneOf`` whose branches are only ``const`` values (how the spec spells an enumeration, such
  as component or button style types) becomes the equivalent ``enum``: same meaning, much faster,
  and a clearer error.
- ``format`` is an annotation, as JSON Schema says (``int32``, ``snowflake``, ``uri`` are not
  asserted), and defaults are never filled in.

The validator is fastjsonschema (draft-07 code generation; the spec uses no keyword draft-07
lacks). Each operation's schema is compiled the first time a request needs it, once per
process, with a generator that leaves the schema out of the exceptions it raises (fastjsonschema
otherwise inlines every expanded sub-schema into the generated code: ten times the code, four
times the compile time). When a union fails, ``problems`` explains it by descending into the
branches the value could have meant (``type`` discriminators, ``null`` alternatives), so an error
names the field at fault (``data.components.0.components.0.label``), not the union.

Without the spec the fake validates nothing and says so once (a warning); with ``CI=true``, where
the spec is always present, its absence fails the test that starts a fake.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fastjsonschema import JsonSchemaValueException
from fastjsonschema.draft07 import CodeGeneratorDraft07
from fastjsonschema.ref_resolver import RefResolver

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[2]
SNOWFLAKE = "SnowflakeType"
# Discord's codes for the common kinds of form errors (``errors`` of a 50035 answer).
ERROR_CODES = {
    "required": "BASE_TYPE_REQUIRED",
    "maxLength": "BASE_TYPE_MAX_LENGTH",
    "maxItems": "BASE_TYPE_MAX_LENGTH",
    "minLength": "BASE_TYPE_MIN_LENGTH",
    "minItems": "BASE_TYPE_MIN_LENGTH",
    "enum": "BASE_TYPE_CHOICES",
    "const": "BASE_TYPE_CHOICES",
    "maximum": "NUMBER_TYPE_MAX",
    "minimum": "NUMBER_TYPE_MIN",
    "anyOf": "UNION_TYPE_CHOICES",
    "oneOf": "UNION_TYPE_CHOICES",
    "type": "BASE_TYPE_BAD_TYPE",
}
UNIONS = ("anyOf", "oneOf")
# The operations with a body that the fake serves: compiled as soon as the spec is loaded, so
# no request of a test waits for a compile (the 3 s interaction deadline runs meanwhile).
SERVED = (
    ("put", "/applications/{application_id}/commands"),
    ("put", "/applications/{application_id}/guilds/{guild_id}/commands"),
    ("post", "/interactions/{interaction_id}/{interaction_token}/callback"),
    ("post", "/webhooks/{webhook_id}/{webhook_token}"),
    ("patch", "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}"),
    ("post", "/users/@me/channels"),
    ("patch", "/channels/{channel_id}"),
    ("post", "/channels/{channel_id}/threads"),
    ("post", "/channels/{channel_id}/messages"),
    ("patch", "/channels/{channel_id}/messages/{message_id}"),
    ("post", "/guilds/{guild_id}/scheduled-events"),
    ("patch", "/guilds/{guild_id}/scheduled-events/{guild_scheduled_event_id}"),
)
Validate = Callable[[Any], Any]


def spec_path(root: Path = ROOT) -> Path:
    return root.parent / "shared" / "data" / "discord-api-spec" / "openapi.json"


def find_spec(root: Path, environ: Mapping[str, str]) -> Path | None:
    """The spec beside the repository, or None (no validation) when it is missing; under
    ``CI=true``, where it is always present, its absence fails instead."""
    candidate = spec_path(root)
    if candidate.is_file():
        return candidate
    message = f"Discord's OpenAPI spec not found at {candidate}"
    if environ.get("CI", "").lower() == "true":
        pytest.fail(f"{message}; CI=true, where the spec is always present")
    return None


# ---------------------------------------------------------------------- adapting the spec


def _enum_of_consts(node: dict[str, Any]) -> dict[str, Any]:
    branches = node.get("oneOf")
    if not isinstance(branches, list) or not branches:
        return node
    if not all(
        isinstance(b, dict) and "const" in b and set(b) <= {"const", "title", "description"}
        for b in branches
    ):
        return node
    values = [b["const"] for b in branches]
    if len({json.dumps(v) for v in values}) != len(values):
        return node  # equal consts: oneOf would refuse them, an enum would not
    adapted = {k: v for k, v in node.items() if k != "oneOf"}
    adapted["enum"] = values
    return adapted


def _adapt(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _adapt(v) for k, v in _enum_of_consts(node).items()}
    if isinstance(node, list):
        return [_adapt(v) for v in node]
    return node


def adapt_schemas(schemas: Mapping[str, Any]) -> dict[str, Any]:
    """The spec's component schemas as the fake holds bodies to them (see the module doc)."""
    adapted: dict[str, Any] = _adapt(dict(schemas))
    snowflake = adapted.get(SNOWFLAKE)
    if snowflake is not None:
        adapted[SNOWFLAKE] = {
            "anyOf": [snowflake, {"type": "integer", "minimum": 0, "maximum": 2**64 - 1}]
        }
    return adapted


# ---------------------------------------------------------------------- compiling


class _Generator(CodeGeneratorDraft07):
    """fastjsonschema's draft-07 generator, raising lighter exceptions: the rule's own
    definition only for unions (to explain them), never the expanded schema."""

    def exc(
        self,
        msg: str,
        *args: Any,
        append_to_msg: str | None = None,
        rule: str | None = None,
    ) -> None:
        arg = '"' + msg + '"'
        if append_to_msg:
            arg += " + (" + append_to_msg + ")"
        definition: Any = self._definition
        keep = rule in UNIONS and isinstance(definition, dict)
        self.l(
            "raise JsonSchemaValueException("
            + arg
            + ', value={variable}, name="{name}", definition={kept}, rule={rule})',
            *args,
            kept=repr({k: definition[k] for k in UNIONS if k in definition}) if keep else "None",
            rule=repr(rule),
            definition_rule=self.e(  # type: ignore[no-untyped-call]
                definition.get(rule) if isinstance(definition, dict) else None
            ),
        )


def _compile(schema: Any, components: dict[str, Any]) -> Validate:
    root = {"$ref": "#/x-body", "x-body": schema, "components": {"schemas": components}}
    resolver = RefResolver.from_schema(root, handlers={}, store={})
    generator = _Generator(  # type: ignore[no-untyped-call]
        root, resolver=resolver, formats={}, use_default=False, use_formats=False
    )
    state: dict[str, Any] = generator.global_state
    exec(generator.func_code, state)
    validate: Validate = state[resolver.get_scope_name()]
    return validate


# ---------------------------------------------------------------------- problems


@dataclass(frozen=True)
class Problem:
    """One reason the spec refuses a body: where (keys and indexes), which rule, and why."""

    location: tuple[str | int, ...]
    rule: str
    message: str

    def __str__(self) -> str:
        where = ".".join(str(k) for k in self.location) or "(body)"
        return f"{where}: {self.message} [{self.rule}]"


@dataclass(frozen=True)
class Operation:
    method: str  # lower-case, as in the spec
    template: str
    pattern: re.Pattern[str]
    literals: int
    schema: Any

    @property
    def name(self) -> str:
        return f"{self.method.upper()} {self.template}"


def _relative(error: JsonSchemaValueException, value: Any) -> tuple[str | int, ...]:
    """Where in ``value`` the error is: keys, and indexes as ints (the generated code names
    them in text: its first element is its own "data")."""
    location: list[str | int] = []
    for key in error.path[1:]:
        if isinstance(value, list) and str(key).isdigit() and int(key) < len(value):
            location.append(int(key))
            value = value[int(key)]
        else:
            location.append(key)
            value = value.get(key) if isinstance(value, dict) else None
    return tuple(location)


def _reason(error: JsonSchemaValueException) -> str:
    message = error.message
    if error.name and message.startswith(error.name):
        message = message[len(error.name) :].strip()
    return message


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


@dataclass
class RequestBodies:
    """The spec's request bodies, compiled on first use; ``problems`` judges one body."""

    components: dict[str, Any]
    operations: list[Operation]
    _validators: dict[str, Validate] = field(default_factory=dict)
    # What it cost so far in this process: compiling, and judging ``checked`` bodies.
    compile_seconds: float = 0.0
    checked: int = 0
    check_seconds: float = 0.0

    @classmethod
    def from_document(cls, document: Mapping[str, Any]) -> RequestBodies:
        components = adapt_schemas(document.get("components", {}).get("schemas", {}))
        operations = []
        for template, item in document.get("paths", {}).items():
            segments = template.strip("/").split("/")
            regex = "/" + "/".join(
                "[^/]+" if s.startswith("{") else re.escape(s) for s in segments
            )
            literals = sum(1 for s in segments if not s.startswith("{"))
            for method, operation in item.items():
                body = operation.get("requestBody") if isinstance(operation, dict) else None
                if not body:
                    continue
                content = body.get("content", {})
                chosen = content.get("application/json") or next(iter(content.values()), None)
                if chosen is None or "schema" not in chosen:
                    continue
                operations.append(
                    Operation(method, template, re.compile(regex), literals, chosen["schema"])
                )
        # The most literal template first: /messages/@original before /messages/{message_id}.
        operations.sort(key=lambda o: -o.literals)
        return cls(components, operations)

    def compile(self, served: Sequence[tuple[str, str]] = SERVED) -> None:
        """Compile the schemas of these (method, template) operations now."""
        for method, template in served:
            for operation in self.operations:
                if (operation.method, operation.template) == (method, template):
                    self._validator(operation.schema)

    def operation(self, method: str, path: str) -> Operation | None:
        method = method.lower()
        for operation in self.operations:
            if operation.method == method and operation.pattern.fullmatch(path):
                return operation
        return None

    def _validator(self, schema: Any) -> Validate:
        key = json.dumps(schema, sort_keys=True)
        validate = self._validators.get(key)
        if validate is None:
            started = time.perf_counter()
            validate = _compile(schema, self.components)
            self.compile_seconds += time.perf_counter() - started
            self._validators[key] = validate
        return validate

    def problems(self, operation: Operation, body: Any) -> list[Problem]:
        """Why Discord would refuse ``body`` for ``operation`` (empty: it is valid)."""
        validate = self._validator(operation.schema)
        started = time.perf_counter()
        try:
            validate(body)
        except JsonSchemaValueException:
            return self._explain(operation.schema, body, (), depth=0)
        finally:
            self.checked += 1
            self.check_seconds += time.perf_counter() - started
        return []

    # -- explaining a failure ------------------------------------------------------------

    def _resolve(self, schema: Any) -> Any:
        while isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
            name = schema["$ref"].rsplit("/", 1)[-1]
            schema = self.components.get(name, {})
        return schema

    def _could_mean(self, branch: Any, value: Any) -> bool:
        """Whether ``value`` was plausibly meant as ``branch`` of a union: its JSON type
        fits and, for an object, its ``type`` discriminator is one the branch allows."""
        schema = self._resolve(branch)
        if not isinstance(schema, dict):
            return True
        kinds = schema.get("type")
        if kinds is not None:
            allowed = {kinds} if isinstance(kinds, str) else set(kinds)
            if "number" in allowed:
                allowed.add("integer")
            if _json_type(value) not in allowed:
                return False
        if isinstance(value, dict) and "type" in value:
            discriminator = self._resolve(schema.get("properties", {}).get("type"))
            if isinstance(discriminator, dict):
                choices = discriminator.get("enum")
                if "const" in discriminator:
                    choices = [discriminator["const"]]
                if isinstance(choices, list) and value["type"] not in choices:
                    return False
        return True

    def _explain(
        self, schema: Any, value: Any, at: tuple[str | int, ...], depth: int
    ) -> list[Problem]:
        try:
            self._validator(schema)(value)
            return []
        except JsonSchemaValueException as error:
            where = at + _relative(error, value)
            rule = error.rule or "invalid"
            union = error.definition.get(rule) if isinstance(error.definition, dict) else None
            # Ambiguity ("2 matches found") is its own problem; no match is explained below.
            ambiguous = rule == "oneOf" and "(0 matches found)" not in error.message
            if isinstance(union, list) and not ambiguous and depth < 12:
                meant = [b for b in union if self._could_mean(b, error.value)]
                found: list[Problem] = []
                for branch in meant[:3]:
                    found.extend(self._explain(branch, error.value, where, depth + 1))
                if found:
                    return found
            return [Problem(where, rule, _reason(error))]


def discord_errors(problems: Sequence[Problem]) -> dict[str, Any]:
    """The ``errors`` object of Discord's 50035 answer: the body's keys nested, each field's
    ``_errors`` a list of ``{"code", "message"}``."""
    errors: dict[str, Any] = {}
    for problem in problems:
        node = errors
        for key in problem.location:
            node = node.setdefault(str(key), {})
        node.setdefault("_errors", []).append(
            {"code": ERROR_CODES.get(problem.rule, "BASE_TYPE_INVALID"), "message": problem.message}
        )
    return errors


@dataclass(frozen=True)
class SchemaViolation:
    """A request body Discord's spec refuses (the fake answered it with 400 / 50035)."""

    method: str
    path: str
    operation: str
    problems: tuple[Problem, ...]
    body: Any

    def __str__(self) -> str:
        shown = json.dumps(self.body)
        if len(shown) > 300:
            shown = shown[:300] + "..."
        lines = "\n".join(f"    {p}" for p in self.problems)
        return f"  {self.method} {self.path} ({self.operation}):\n{lines}\n    body: {shown}"


# ---------------------------------------------------------------------- once per process

_loaded: dict[Path, RequestBodies | None] = {}
load_seconds: dict[Path, float] = {}


def request_bodies(
    root: Path = ROOT, environ: Mapping[str, str] | None = None
) -> RequestBodies | None:
    """The spec's request bodies, loaded and the fake's operations compiled once per process
    (None without the spec)."""
    path = find_spec(root, os.environ if environ is None else environ)
    if path is None:
        missing = spec_path(root)
        if missing not in _loaded:
            _loaded[missing] = None
            text = f"Discord's OpenAPI spec not found at {missing}: request bodies not validated"
            log.warning("fake discord: %s", text)
            warnings.warn(text, stacklevel=2)
        return None
    if path not in _loaded:
        started = time.perf_counter()
        with path.open(encoding="utf-8") as handle:
            document = json.load(handle)
        bodies = RequestBodies.from_document(document)
        bodies.compile()
        _loaded[path] = bodies
        load_seconds[path] = time.perf_counter() - started
    return _loaded[path]
