"""The attack suite's entry point (profiles and variables: tests/README.md, "The attack machine").

CI runs a bounded profile: 10 machine runs of up to 40 steps, no shrinking (under half a minute;
hypothesis picks each run's length, so about 300 steps in all). ``ATTACK_EXAMPLES`` and
``ATTACK_STEPS`` set a longer run, ``ATTACK_PROFILE=long`` is 100 runs of 100 steps with
shrinking.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from tests.attack.machine import STATS, AttackMachine

pytestmark = pytest.mark.slow  # scheduled first: see tests/conftest.py

LONG = os.environ.get("ATTACK_PROFILE", "ci") == "long"
EXAMPLES = int(os.environ.get("ATTACK_EXAMPLES", "100" if LONG else "10"))
STEPS = int(os.environ.get("ATTACK_STEPS", "100" if LONG else "40"))
SHRINK = os.environ.get("ATTACK_SHRINK", "1" if LONG else "0") == "1"
# The CI profile may not hang a CI run; a run sized by hand takes as long as it takes.
SIZED = LONG or "ATTACK_EXAMPLES" in os.environ or "ATTACK_STEPS" in os.environ
TIMEOUT = int(os.environ.get("ATTACK_TIMEOUT", "0" if SIZED else "600"))


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
