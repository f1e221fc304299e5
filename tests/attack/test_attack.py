"""The attack suite's entry point.

CI runs a bounded profile (10 machine runs of up to 40 steps, no shrinking: under a minute;
hypothesis picks each run's length, so about 250 steps in all).
By hand::

    ATTACK_PROFILE=long .venv/bin/python -m pytest tests/attack -q -p no:xdist
    ATTACK_EXAMPLES=50 ATTACK_STEPS=80 ATTACK_SHRINK=1 .venv/bin/python -m pytest tests/attack

``ATTACK_PROFILE=long`` means 100 runs of 100 steps with shrinking; ``ATTACK_EXAMPLES`` and
``ATTACK_STEPS`` override either profile, ``ATTACK_SHRINK=1``/``0`` turns shrinking on or off,
pytest's ``--hypothesis-seed=N`` makes a run repeatable, and ``ATTACK_IGNORE`` (regular
expressions separated by ``;;``, matched against "<FailureClass>: <detail>") skips known
failures to look for others.
The last line printed says how many steps ran and how fast.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from tests.attack.machine import STATS, AttackMachine

LONG = os.environ.get("ATTACK_PROFILE", "ci") == "long"
EXAMPLES = int(os.environ.get("ATTACK_EXAMPLES", "100" if LONG else "10"))
STEPS = int(os.environ.get("ATTACK_STEPS", "100" if LONG else "40"))
SHRINK = os.environ.get("ATTACK_SHRINK", "1" if LONG else "0") == "1"
TIMEOUT = int(os.environ.get("ATTACK_TIMEOUT", "0" if LONG else "600"))


def attack_settings() -> settings:
    phases = [Phase.explicit, Phase.reuse, Phase.generate]
    if SHRINK:
        phases.append(Phase.shrink)
    return settings(
        max_examples=EXAMPLES,
        stateful_step_count=STEPS,
        deadline=None,
        phases=phases,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=True,
        print_blob=True,
    )


@pytest.mark.timeout(TIMEOUT)
def test_attack_the_bot(capsys: pytest.CaptureFixture[str]) -> None:
    try:
        run_state_machine_as_test(AttackMachine, settings=attack_settings())
    finally:
        with capsys.disabled():
            print("\n" + STATS.line())
