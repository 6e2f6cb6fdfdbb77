"""Every mail policy makes each kind of header's class once, and reads and writes mail exactly
as the standard library's own header registry does."""

from __future__ import annotations

import email.policy
import pickle
from email.headerregistry import HeaderRegistry
from email.parser import BytesParser
from email.policy import EmailPolicy
from pathlib import Path

import pytest

from adjudicator.mail import incoming, outgoing
from adjudicator.mail.headerclasses import DEFAULT_POLICY, HeaderClasses

FIXTURES = Path(__file__).parent / "mail"
POLICIES = {
    "outgoing": outgoing.POLICY,
    "incoming": incoming._POLICY,
    "default": DEFAULT_POLICY,
}


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_each_kind_of_header_gets_its_class_once(name: str) -> None:
    factory = POLICIES[name].header_factory
    assert isinstance(factory, HeaderClasses)
    assert factory["To"] is factory["cc"] is factory["From"]  # address lists
    assert factory["X-Mailer"] is factory["X-Anything-Else"] is factory["Comments"]
    assert factory["To"] is not factory["Subject"]
    made = len(factory._made)
    for number in range(500):  # a stranger's message of many unknown fields adds nothing
        factory(f"X-Field-{number}", "value")
    assert len(factory._made) == made


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.eml")), ids=lambda p: p.name)
def test_mail_reads_and_writes_as_with_the_standard_registry(path: Path) -> None:
    raw = path.read_bytes()
    theirs = email.policy.default.clone(header_factory=HeaderRegistry())
    for policy in (DEFAULT_POLICY, outgoing.POLICY):
        standard = _standard(policy)
        ours = BytesParser(policy=policy).parsebytes(raw)
        same = BytesParser(policy=standard).parsebytes(raw)
        assert ours.as_bytes() == same.as_bytes()
        assert [(k, str(v), type(v).__mro__[1:]) for k, v in ours.items()] == [
            (k, str(v), type(v).__mro__[1:]) for k, v in same.items()
        ]
        assert [[type(d) for d in v.defects] for v in ours.values()] == [
            [type(d) for d in v.defects] for v in same.values()
        ]
    assert BytesParser(policy=theirs).parsebytes(raw).as_bytes() == (
        BytesParser(policy=DEFAULT_POLICY).parsebytes(raw).as_bytes()
    )


def _standard(policy: EmailPolicy) -> EmailPolicy:
    made: EmailPolicy = policy.clone(header_factory=HeaderRegistry())
    return made


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_a_policy_and_its_mail_pickle_after_headers_were_made(name: str) -> None:
    policy = POLICIES[name]
    message = BytesParser(policy=policy).parsebytes(
        b"From: a@b.example\r\nTo: c@d.example\r\nSubject: hi\r\n\r\nbody\r\n"
    )
    assert str(message["Subject"]) == "hi"  # classes made: the registry holds them now
    again = pickle.loads(pickle.dumps(message))
    assert again.as_bytes() == message.as_bytes()
    assert str(again["To"].addresses[0]) == "c@d.example"
    copy = pickle.loads(pickle.dumps(policy))
    assert copy.header_factory["Subject"]("Subject", "x") == "x"
