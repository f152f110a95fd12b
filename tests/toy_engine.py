"""A toy engine, added the way the registry says: this module plus one registry entry.

The entry reaches the registry through FUZZWEB_ENGINE_PLUGINS (tests/engines/test_registry.py);
nothing else in the project names it.
"""

from dataclasses import dataclass

from engines import events
from engines.registry import Budget, Engine

ENGINE = Engine(
    name="toy",
    title="A toy engine",
    run="tests.toy_engine:run",
    default_targets=({"name": "toy target", "description": "Finds one crash, always."},),
)


@dataclass
class Summary:
    stopped: bool = False


def run(target: dict, options: dict, budget: Budget, sink) -> Summary:
    """One finding: a crash with a Python traceback, as any engine would report it."""
    trace = (
        "Traceback (most recent call last):\n"
        '  File "/toy/widget.py", line 7, in spin\n'
        "    return 1 // budget\n"
        "ZeroDivisionError: integer division or modulo by zero\n"
    )
    sink.finding(
        events.Finding(
            kind="crash",
            target=target["name"],
            function="widget.spin",
            crash_type="ZeroDivisionError",
            message="integer division or modulo by zero",
            trace=trace,
            input_text="spin(0)",
            reproducer=f"toy --seed {budget.seed}",
        )
    )
    sink.stats(events.Stats(executions=1, findings=1, elapsed_seconds=0.1))
    return Summary()
