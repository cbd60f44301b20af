"""config/README.md documents every key of the schema (so the docs cannot drift)."""

from __future__ import annotations

import yaml


def _keys(schema: dict, prefix: str = "") -> list[str]:
    keys = []
    for name, sub in schema.get("properties", {}).items():
        path = f"{prefix}{name}"
        keys.append(path)
        keys += _keys(sub, f"{path}.")
        extra = sub.get("additionalProperties")
        if isinstance(extra, dict) and "properties" in extra:
            keys += _keys(extra, f"{path}.<name>.")
        items = sub.get("items")
        if isinstance(items, dict) and "properties" in items:
            keys += _keys(items, f"{path}[].")
    return keys


def test_every_schema_key_is_documented(repo):
    schema = yaml.safe_load((repo / "workflow" / "schemas" / "config.schema.yaml").read_text())
    docs = (repo / "config" / "README.md").read_text()
    keys = _keys(schema)
    assert len(keys) > 40
    missing = [k for k in keys if f"`{k}`" not in docs]
    assert not missing, f"config/README.md lacks: {missing}"
