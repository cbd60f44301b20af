"""The cost cap of an API model, checked so that no value can switch it off.

``models.llms.<name>.prices`` (USD per million input and output tokens) and ``max_cost_usd``
are compared with ``>``: a NaN makes every comparison false (no cap), an infinite price or cap
makes the estimate or the cap meaningless, and a zero or negative one makes the cap pass
everything. So every given price and the cap must be finite numbers above 0, and a cap needs
both prices (without them every estimate is $0 and the cap never acts). One line, naming the
key or the flag, before any work: at config validation (:mod:`hinter.config`), when
``hinter test`` builds its model (:mod:`hinter.testrun.llm`), and again when the client is made
(:class:`hinter.models.chat_openai.OpenAIChat`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from hinter.errors import ConfigError

PRICE_KEYS = ("input", "output")


def positive_amount(value: Any) -> bool:
    """A finite number above 0 (not a bool)."""
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value > 0
    )


def check_costs(
    spec: Mapping[str, Any], key: str, name: Callable[[str], str] | None = None
) -> None:
    """Refuse prices and a cap that could not act (module docstring). ``name`` turns a key
    (``prices.input``, ``max_cost_usd``) into what the message names (default: the config
    key under ``key``)."""
    where = name or (lambda k: f"config key '{key}.{k}'")
    prices = spec.get("prices") or {}
    for part in PRICE_KEYS:
        value = prices.get(part)
        if value is not None and not positive_amount(value):
            raise ConfigError(
                f"{where('prices.' + part)}: {value!r} is not a price (a finite number of USD "
                "per million tokens, above 0)"
            )
    cap = spec.get("max_cost_usd")
    if cap is None:
        return
    if not positive_amount(cap):
        raise ConfigError(
            f"{where('max_cost_usd')}: {cap!r} is not a cap (a finite number of USD above 0)"
        )
    missing = [p for p in PRICE_KEYS if prices.get(p) is None]
    if missing:
        raise ConfigError(
            f"{where('max_cost_usd')}: a cap needs {where('prices')} for input and output "
            f"tokens (no {missing[0]} price: every estimate would be $0 and the cap never acts)"
        )
