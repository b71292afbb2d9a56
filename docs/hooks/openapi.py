"""MkDocs hook: the HTTP reference page, rendered at build time from the OpenAPI schema
of the FastAPI app itself, so the page cannot drift from what `sediment serve` answers.
The schema is also written beside the page (`reference/openapi.json`).

The app is built over an embedded runtime in a scratch directory (hash embedder, no
model, no network): only its routes and models are read."""

import json
import tempfile
from pathlib import Path
from typing import Any

MARKER = "<!-- openapi -->"
PAGE = "reference/http.md"
METHODS = ("get", "post", "put", "patch", "delete")
_schema: dict[str, Any] | None = None


def openapi_schema() -> dict[str, Any]:
    """The schema `GET /openapi.json` serves, built once per process."""
    global _schema
    if _schema is None:
        from sediment.api.app import create_app
        from sediment.bootstrap import bootstrap
        from sediment.settings import Settings

        with tempfile.TemporaryDirectory() as scratch:
            settings = Settings(mode="embedded", data_dir=Path(scratch), embedder="hash")
            rt = bootstrap(settings)
            try:
                _schema = create_app(rt.api_deps).openapi()
            finally:
                rt.close()
    return _schema


def anchor(name: str) -> str:
    return "schema-" + "".join(c if c.isalnum() else "-" for c in name.lower())


def type_of(schema: dict[str, Any]) -> str:
    """A schema fragment in a few words, `$ref`s as links to the schema's section."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{anchor(name)})"
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " or ".join(type_of(s) for s in schema[key])
    if schema.get("type") == "array":
        return f"list of {type_of(schema.get('items', {}))}"
    if "enum" in schema:
        return " \\| ".join(f"`{v}`" for v in schema["enum"])
    if "const" in schema:
        return f"`{schema['const']}`"
    kind = str(schema.get("type", "any"))
    return f"{kind} ({schema['format']})" if "format" in schema else kind


def cell(text: object) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def render_operation(path: str, method: str, op: dict[str, Any]) -> list[str]:
    out = [f"### `{method.upper()} {path}`", ""]
    if op.get("summary"):
        out += [f"**{op['summary']}**", ""]
    if op.get("description"):
        out += [op["description"].strip(), ""]
    params = op.get("parameters", [])
    if params:
        out += [
            "| parameter | in | type | required | description |",
            "| --- | --- | --- | --- | --- |",
        ]
        out += [
            f"| `{p['name']}` | {p['in']} | {type_of(p.get('schema', {}))} | "
            f"{'yes' if p.get('required') else 'no'} | {cell(p.get('description', ''))} |"
            for p in params
        ]
        out.append("")
    body = op.get("requestBody", {}).get("content", {})
    for media, content in body.items():
        out += [f"Body (`{media}`): {type_of(content.get('schema', {}))}", ""]
    out += ["| status | answer |", "| --- | --- |"]
    for status, answer in op.get("responses", {}).items():
        schemas = [
            type_of(c["schema"]) for c in answer.get("content", {}).values() if "schema" in c
        ]
        shown = f"{cell(answer.get('description', ''))}" + (f": {schemas[0]}" if schemas else "")
        out.append(f"| {status} | {shown} |")
    return [*out, ""]


def render_schema(name: str, schema: dict[str, Any]) -> list[str]:
    out = [f"### {name} {{ #{anchor(name)} }}", ""]
    if schema.get("description"):
        out += [schema["description"].strip(), ""]
    props = schema.get("properties", {})
    if not props:
        return [*out, f"Type: {type_of(schema)}", ""]
    required = set(schema.get("required", []))
    out += ["| field | type | required | description |", "| --- | --- | --- | --- |"]
    for field, spec in props.items():
        out.append(
            f"| `{field}` | {type_of(spec)} | {'yes' if field in required else 'no'} | "
            f"{cell(spec.get('description', ''))} |"
        )
    return [*out, ""]


def render(schema: dict[str, Any]) -> str:
    info = schema["info"]
    out = [
        f"OpenAPI {schema['openapi']}, API version {info['version']}: {info.get('summary', '')}",
        "",
    ]
    out += ['<a href="openapi.json">Download openapi.json</a>', "", "## Routes", ""]
    for path, item in schema["paths"].items():
        for method in METHODS:
            if method in item:
                out += render_operation(path, method, item[method])
    out += ["## Schemas", ""]
    for name, spec in sorted(schema.get("components", {}).get("schemas", {}).items()):
        out += render_schema(name, spec)
    return "\n".join(out)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if page.file.src_uri != PAGE:
        return markdown
    assert MARKER in markdown, f"{PAGE} lost its {MARKER} line"
    return markdown.replace(MARKER, render(openapi_schema()))


def on_post_build(config: Any) -> None:
    target = Path(config["site_dir"]) / "reference" / "openapi.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(openapi_schema(), indent=2) + "\n", encoding="utf-8")
