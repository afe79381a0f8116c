"""Checks every set of error-string files shares (errors-*.yaml read as (file, card, name, message)): each
name is an identifier and each message is listed once, as lookup reads it; and no message repeats one of
another error file, which would make a pasted line answer whichever file loaded first."""

from __future__ import annotations

from conftest import glossary_without_rows
from xlate import kb

Listed = list[tuple[str, str, str, str]]


def check_listed_once(listed: Listed) -> None:
    assert all(e.isidentifier() for _, _, e, _ in listed)
    keys = [kb.message_key(m) for _, _, _, m in listed]
    assert len(keys) == len(set(keys)), sorted(k for k in keys if keys.count(k) > 1)


def check_no_message_of_another_file(ours: set[str], listed: Listed) -> None:
    """`ours`: the `messages_of` of the files checked; every other error file's messages are compared."""
    others = {kb.message_key(e.message): (m.messages_of, e.name)
              for m in glossary_without_rows().error_messages if m.messages_of not in ours for e in m.errors}
    assert others, "the other error files did not load"
    assert not {m: others[kb.message_key(m)] for _, _, _, m in listed if kb.message_key(m) in others}
