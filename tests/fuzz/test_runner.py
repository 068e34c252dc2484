"""The runner counts an input as a finding only when it breaks the contract again."""

from __future__ import annotations

from fuzz import runner
from fuzz.seeds import seed_files


def test_an_input_that_keeps_the_contract_is_not_a_finding():
    assert not runner._reproduces("decode", seed_files("decode")[0])


def test_an_input_that_fails_or_hangs_in_replay_is_a_finding(monkeypatch, tmp_path):
    data = tmp_path / "input"
    data.write_bytes(b"\x00")
    assert runner._reproduces("no-such-target", data)  # the replay exits with an error
    monkeypatch.setattr(runner, "TIMEOUT", 0.001)
    assert runner._reproduces("decode", data)  # past the time limit


def test_a_process_that_grew_to_the_cap_is_restarted():
    assert runner._grown_out(1068)  # a read run ended at 1,068 MB without saving an input
    assert not runner._grown_out(190)
