"""schema_check.py - a small JSON Schema (OpenAPI 3.0 subset) checker for
the --json tests: type (string, integer, number, boolean, array, object),
nullable, properties and items. Members the schema does not name are
allowed, as the spec allows them; members it names are not required.

    errors = check(doc, schema)   # [] when doc fits; else "path: problem" lines
    schemas = db_schemas()        # {"dbv0.0.38_job": {...}, ...} from our tables
"""

import json
import subprocess

from cluster import BUILD_DIR

_TYPES = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def check(value, schema, path="$"):
    """The ways value does not fit schema, as a list of strings."""
    if value is None:
        return [] if schema.get("nullable") or "type" not in schema else [f"{path}: null"]
    kind = schema.get("type")
    if kind is not None:
        if kind not in _TYPES:
            return [f"{path}: schema has unknown type {kind!r}"]
        if not _TYPES[kind](value):
            return [f"{path}: {type(value).__name__} {value!r:.60} is not {kind}"]
    errors = []
    if isinstance(value, dict):
        for name, sub in schema.get("properties", {}).items():
            if name in value:
                errors += check(value[name], sub, f"{path}.{name}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            errors += check(item, schema["items"], f"{path}[{i}]")
    return errors


def db_schemas():
    """The dbv0.0.38 components our tables describe (tests/tools/db_schema_dump)."""
    out = subprocess.run([str(BUILD_DIR / "db_schema_dump")], capture_output=True, text=True,
                         check=True, timeout=30).stdout
    return json.loads(out)["schemas"]
