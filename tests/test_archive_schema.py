"""docs/archive.md against the code: archives of real games fit docs/schemas/archive.schema.json,
the formulas the doc gives recompute the journal's commitment and digests, the hand checks it
shows run as written, and verify prints what the doc says it prints."""

from __future__ import annotations

import base64
import copy
import hashlib
import hmac
import json
import re
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from adjudicator.rules import digests
from adjudicator.store import journal
from tests.helpers import DEMO_NO_SITE, Table, run
from tests.tools import require_tool

DOCS = Path(__file__).resolve().parent.parent / "docs"
DOC = (DOCS / "archive.md").read_text()
SCHEMA = json.loads((DOCS / "schemas" / "archive.schema.json").read_text())


def block(language: str, after: str) -> str:
    """The first fenced block of ``language`` in docs/archive.md after the text ``after``."""
    found = re.search(rf"```{language}\n(.*?)```", DOC[DOC.index(after) :], re.DOTALL)
    assert found, f"no {language} block after {after!r} in docs/archive.md"
    return found.group(1)


def archive(gamedir: Path, out: Path, public: bool = False) -> dict[str, Any]:
    result = run("archive", gamedir, *(["--public"] if public else []), "-o", out)
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(out.read_text())
    return data


def paths(data: dict[str, Any]) -> set[str]:
    return {item["path"] for item in data["files"]}


def named(data: dict[str, Any]) -> dict[str, str]:
    """Every file the archive's journal names, where it is now, with its digest."""
    return journal.facts([json.loads(line) for line in data["journal"]]).files


@pytest.fixture(scope="module")
def archives(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A finished demo game (seed 7, three players): its full and its public archive."""
    root = tmp_path_factory.mktemp("demo")
    result = run(*DEMO_NO_SITE, "sultan", "--players", "3", "--seed", "7", "--dir", root)
    assert result.exit_code == 0, result.output
    return {
        "root": root,
        "full": archive(root / "game", root / "full.json"),
        "public": archive(root / "game", root / "public.json", public=True),
    }


@pytest.fixture
def validator() -> jsonschema.Draft7Validator:
    assert SCHEMA["$schema"] == "http://json-schema.org/draft-07/schema#"
    jsonschema.Draft7Validator.check_schema(SCHEMA)
    return jsonschema.Draft7Validator(SCHEMA)


def errors(validator: jsonschema.Draft7Validator, data: Any) -> list[str]:
    return [error.message for error in validator.iter_errors(data)]


@pytest.mark.seconds
def test_archives_of_a_finished_game_fit_the_schema_and_hold_what_the_doc_says(
    archives: dict[str, Any], validator: jsonschema.Draft7Validator
) -> None:
    full, public = archives["full"], archives["public"]
    assert errors(validator, full) == []
    assert errors(validator, public) == []
    assert full["over"] is public["over"] is True
    assert (full["public"], public["public"]) == (False, True)
    # a full archive: every file the journal names; a public one, once over: all but these
    assert paths(full) == set(named(full))
    private = {"game.json", "setup.yaml"}
    assert paths(public) == paths(full) - private
    assert full["seed"] == public["seed"] == "00000000000000000000000000000007"
    assert full["salt"] == public["salt"]
    assert [item["path"] for item in full["files"]] == sorted(paths(full))
    lines = (archives["root"] / "game" / "log.jsonl").read_text()
    assert "".join(line + "\n" for line in full["journal"]) == lines


def test_archives_of_a_running_game_fit_the_schema_and_hold_what_the_doc_says(
    tmp_path: Path, validator: jsonschema.Draft7Validator
) -> None:
    table = Table(tmp_path)
    table.play_turn()
    table.play_turn()
    public = archive(table.gamedir, tmp_path / "public.json", public=True)
    full = archive(table.gamedir, tmp_path / "full.json")
    assert errors(validator, public) == []
    assert errors(validator, full) == []
    assert public["over"] is False and "seed" not in public and "salt" not in public
    assert paths(public) == {f"turns/{n:04d}/views/public.json" for n in (1, 2, 3)}
    assert paths(full) == set(named(full))
    assert "seed" in full and "salt" in full
    # what the doc says verify prints of a public archive of a running game
    result = run("verify", tmp_path / "public.json")
    assert result.exit_code == 0, result.output
    assert "  seed: still secret; the game ends before it is revealed\n" in result.output
    assert "  replay: waits for the end of the game (the seed is revealed then)\n" in result.output


@pytest.mark.parametrize(
    "change",
    [
        lambda a: a.update(extra=1),
        lambda a: a.update(version=2),
        lambda a: a.update(format="zip"),
        lambda a: a.update(journal=[]),
        lambda a: a.update(journal=["{}\n{}"]),
        lambda a: a.update(public="no"),
        lambda a: a.pop("files"),
        lambda a: a["files"][0].update(base64="AAAA"),
        lambda a: a["files"][0].pop("text"),
        lambda a: a["files"][0].update(size=3),
        lambda a: a.update(seed=[7]),
    ],
)
def test_the_schema_refuses_what_verify_refuses(
    change: Any, archives: dict[str, Any], validator: jsonschema.Draft7Validator, tmp_path: Path
) -> None:
    bad = copy.deepcopy(archives["full"])
    change(bad)
    assert errors(validator, bad)
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    result = run("verify", tmp_path / "bad.json")
    assert result.exit_code == 3
    assert "not an archive this version can read" in result.output


def formulas() -> dict[str, bytes]:
    """The domain strings of the doc's formulas, by name: ``commitment`` and ``file key``."""
    text = block("text", "## Seed, commitment, file key, digests")
    found = re.findall(
        r'^(\w[\w ]*?)\s*= SHA-256\("([^"]*)" \+ seed \+ "\\n" \+ salt \+ "\\n"\)$', text, re.M
    )
    return {name: domain.replace("\\n", "\n").encode("ascii") for name, domain in found}


def test_the_docs_formulas_recompute_the_commitment_and_the_digests(
    archives: dict[str, Any],
) -> None:
    full = archives["full"]
    domains = formulas()
    assert set(domains) == {"commitment", "file key"}
    seed, salt = full["seed"].encode("ascii"), full["salt"].encode("ascii")

    def sha(domain: bytes) -> bytes:
        return hashlib.sha256(domain + seed + b"\n" + salt + b"\n").digest()

    created = json.loads(full["journal"][0])
    assert sha(domains["commitment"]).hex() == created["commitment"]
    # docs/randomness.md gives the same commitment, as a formula and as a shell line
    randomness = (DOCS / "randomness.md").read_text()
    domain = domains["commitment"].decode().replace("\n", "\\n")
    assert f'SHA-256( "{domain}" + seed + "\\n" + salt + "\\n" )' in randomness
    assert f"printf '{domain}%s\\n%s\\n' SEED SALT | sha256sum" in randomness
    key = sha(domains["file key"])
    # the public file pattern as the doc writes it is the code's
    assert f"`{digests.PUBLIC_FILE.pattern}`" in DOC
    files = {item["path"]: item for item in full["files"]}
    digests_named = named(full)
    kinds = set()
    for rel, item in files.items():
        data = (
            item["text"].encode("utf-8")
            if "text" in item
            else base64.b64decode(item["base64"], validate=True)
        )
        if re.fullmatch(digests.PUBLIC_FILE.pattern, rel):
            expected = hashlib.sha256(data).hexdigest()
            kinds.add("public")
        else:
            expected = hmac.new(key, data, hashlib.sha256).hexdigest()
            kinds.add("hidden")
        assert digests_named[rel] == expected, rel
    assert kinds == {"public", "hidden"}
    # each order's digest in the journal is its hidden digest too
    orders = [o for line in full["journal"] for o in journal.order_entries(json.loads(line))]
    assert orders
    for order in orders:
        data = files[f"turns/{order['turn']:04d}/orders/{order['file']}"]["text"].encode()
        assert order["digest"] == hmac.new(key, data, hashlib.sha256).hexdigest()
    # prev: the SHA-256 of the line before with its newline, 64 zeros for the first
    previous = "0" * 64
    for line in full["journal"]:
        assert json.loads(line)["prev"] == previous
        previous = hashlib.sha256(line.encode("utf-8") + b"\n").hexdigest()


def test_the_hand_checks_run_as_written(archives: dict[str, Any], tmp_path: Path) -> None:
    """The sh block of docs/archive.md, run with bash in a folder holding archive.json."""
    for tool in ("jq", "openssl", "sha256sum"):
        require_tool(tool, "the hand checks of docs/archive.md")
    require_tool("ssh-keygen", "the hand checks of docs/archive.md")
    (tmp_path / "archive.json").write_bytes((archives["root"] / "full.json").read_bytes())
    script = block("sh", "## Checking one thing by hand")
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout.split("\n")
    full = archives["full"]
    created = json.loads(full["journal"][0])
    head = hashlib.sha256(full["journal"][-1].encode() + b"\n").hexdigest()
    line6 = json.loads(full["journal"][5])
    order = next(o for o in journal.order_entries(json.loads(full["journal"][1])))
    assert order["player"] == "carol" and order["file"] == "carol-1.yaml"
    assert out[:5] == [
        f"{head}  -",
        f"{line6['prev']}  -",
        line6["prev"],
        f"{created['commitment']}  -",
        created["commitment"],
    ]
    assert out[5].startswith('Good "adjudicator-orders" signature for carol with ED25519 key ')
    assert out[6:8] == [
        f"HMAC-SHA2-256(order.yaml)= {order['digest']}",
        f'"turns/0001/orders/carol-1.yaml": "{order["digest"]}"',
    ]


def masked(text: str) -> list[str]:
    """The lines of ``text`` with every run of 32 or more hex digits made X (heads differ)."""
    return [re.sub(r"[0-9a-f]{32,}", "X", line) for line in text.strip().split("\n")]


def test_verify_prints_what_the_doc_shows(archives: dict[str, Any], tmp_path: Path) -> None:
    full = archives["full"]
    head = hashlib.sha256(full["journal"][4].encode() + b"\n").hexdigest()[:32]
    result = run("verify", archives["root"] / "full.json", "--head", head)
    assert result.exit_code == 0, result.output
    shown = block("text", "When everything agrees")
    assert masked(result.output) == masked(shown)
    # a changed order: the first two lines the doc shows
    bad = copy.deepcopy(full)
    entry = next(i for i in bad["files"] if i["path"] == "turns/0001/orders/carol-1.yaml")
    entry["text"] += " "
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    result = run("verify", tmp_path / "bad.json")
    assert result.exit_code == 3
    assert result.stdout == ""
    assert result.stderr.split("\n")[:2] == block("text", "When anything disagrees").split("\n")[:2]


def test_how_to_check_shows_what_verify_prints(archives: dict[str, Any], tmp_path: Path) -> None:
    """docs/how-to-check.md: its example output is what verify prints of a finished game's
    public archive, and its two example disagreements are what verify prints for them."""
    guide = (DOCS / "how-to-check.md").read_text()
    shown = re.search(r"\n( +demo-sultan-7 \(sultan\).*?)\n\n", guide, re.DOTALL)
    assert shown
    public = archives["public"]
    head = hashlib.sha256(public["journal"][39].encode() + b"\n").hexdigest()[:32]
    result = run("verify", archives["root"] / "public.json", "--head", head)
    assert result.exit_code == 0, result.output
    assert masked(result.output) == masked(textwrap.dedent(shown.group(1)))
    examples = re.findall(r"\n    (Error: .*)\n", guide)
    assert len(examples) == 2
    bad = copy.deepcopy(public)
    entry = next(i for i in bad["files"] if i["path"] == "turns/0001/orders/carol-1.yaml")
    entry["text"] += " "
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    result = run("verify", tmp_path / "bad.json")
    assert result.exit_code == 3
    assert result.stderr.split("\n")[0] == examples[0]
    example_head = re.search(r"chain head ([0-9a-f]{32})", examples[1])
    assert example_head
    result = run("verify", archives["root"] / "public.json", "--head", example_head.group(1))
    assert result.exit_code == 3
    assert result.stderr.split("\n")[0] == examples[1]


def test_how_to_check_shows_what_version_prints() -> None:
    guide = (DOCS / "how-to-check.md").read_text()
    printed = run("--version").output.strip()
    assert f"`{printed}`" in guide or re.sub(r"[0-9.]+$", "0.1.0", printed) in guide
