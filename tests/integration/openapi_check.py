"""openapi_check.py - a small validator of documents against the OpenAPI
3.0 spec our tools print (tests/tools/openapi_dump), enough for the v0.0.38
records: $ref, type, nullable, properties, items, required. Members the
schema does not name are allowed (as OpenAPI's default)."""

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


def load_spec():
    """The spec of openapi_dump, parsed."""
    out = subprocess.run([str(BUILD_DIR / "openapi_dump")], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out)


def _resolve(spec, schema):
    seen = 0
    while "$ref" in schema:
        ref = schema["$ref"]
        assert ref.startswith("#/"), ref
        node = spec
        for part in ref[2:].split("/"):
            node = node[part]
        schema = node
        seen += 1
        assert seen < 32, f"$ref loop at {ref}"
    return schema


def errors(spec, doc, schema, path="$"):
    """Every place where doc breaks schema, as 'path: what' strings."""
    schema = _resolve(spec, schema)
    if doc is None:
        if schema.get("nullable") or "type" not in schema:
            return []
        return [f"{path}: null where {schema['type']} is expected"]
    t = schema.get("type")
    if t is not None and not _TYPES[t](doc):
        return [f"{path}: {type(doc).__name__} {doc!r:.60} where {t} is expected"]
    found = []
    if isinstance(doc, dict):
        for name in schema.get("required", []):
            if name not in doc:
                found.append(f"{path}: required member {name} is missing")
        for name, sub in schema.get("properties", {}).items():
            if name in doc:
                found += errors(spec, doc[name], sub, f"{path}.{name}")
    if isinstance(doc, list) and "items" in schema:
        for i, item in enumerate(doc):
            found += errors(spec, item, schema["items"], f"{path}[{i}]")
    return found


def check(spec, doc, schema_name):
    """Assert doc is a valid components.schemas[schema_name]."""
    found = errors(spec, doc, {"$ref": f"#/components/schemas/{schema_name}"})
    assert not found, "\n".join(found[:20])
