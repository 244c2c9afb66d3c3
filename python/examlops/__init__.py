"""exa from Python: measure a block of code's GPU energy, carbon and cost through exa itself.

    import examlops

    with examlops.measure("JPCP", run_id="3f2a9c") as run:
        train()
    print(run.report["gpu"]["energy_kwh"], run.report["carbon"]["outputs"]["co2e_g"])

    @examlops.measured("JPCP")
    def train(): ...

`measure` runs `exa finops measure` beside the block, watching this process's GPUs (the same
selection exa makes: --gpus, else CUDA_VISIBLE_DEVICES and the like, else all), from entry to exit,
and records the run as MODEL when a model is given. Its report, exa's `-o json`, is `run.report`.
Nothing is measured in-process and no GPU library is loaded here: the numbers are exa's.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time

__all__ = ["ExaError", "Run", "measure", "measured", "exa_path", "Monitor", "Window"]


class ExaError(RuntimeError):
    """exa refused or failed: its own message, and its exit status."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


def exa_path() -> str:
    """$EXAMLOPS_EXA when set, else the exa this package installed (beside the interpreter's scripts), else the
    first on PATH."""
    if os.environ.get("EXAMLOPS_EXA"):
        given = os.environ["EXAMLOPS_EXA"]
        if not os.access(given, os.X_OK):
            raise ExaError(f"EXAMLOPS_EXA={given}: not a program this user can run", 1)
        return given
    scripts = sysconfig.get_path("scripts")
    for candidate in (os.path.join(scripts, "exa"), shutil.which("exa")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise ExaError("the exa program is not installed: pip install examlops puts it on PATH", 1)


def _end_with_parent() -> None:
    """In the child: no signal blocked (a thread that blocks SIGINT would pass its mask on, and
    the interrupt that ends the run would never arrive), and an interrupt when the parent dies
    (Linux's PR_SET_PDEATHSIG), so a process killed mid-block (out of memory, say) still has its
    run ended and recorded, never measured on."""
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
    except (OSError, AttributeError):
        pass
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGINT)
    except (OSError, AttributeError):
        pass


class Run:
    """One measured block: `report` is exa's JSON report once the block has ended."""

    def __init__(self, args: list[str], startup_s: float):
        self._args = args
        self._startup_s = startup_s
        self._dir = tempfile.TemporaryDirectory(prefix="examlops-")
        self._report_path = os.path.join(self._dir.name, "report.json")
        self._trace_path = os.path.join(self._dir.name, "trace.jsonl")
        self._stderr_path = os.path.join(self._dir.name, "stderr.txt")
        self._stdout_path = os.path.join(self._dir.name, "stdout.json")
        self._proc: subprocess.Popen | None = None
        self.report: dict | None = None

    def __enter__(self) -> "Run":
        # The block's CPU time is this process's (--pid): a measurement with none would hold 0 CPU-hours.
        args = [exa_path(), "-o", "json", "finops", "measure", "--report", self._report_path,
                "--trace", self._trace_path, "--pid", str(os.getpid()), *self._args]
        # A session of its own: a Ctrl-C at the terminal is the block's to handle, not the measurement's.
        with open(self._stderr_path, "wb") as err, open(self._stdout_path, "wb") as out:
            self._proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                          preexec_fn=_end_with_parent, start_new_session=True)
        try:
            # The block starts once the GPUs' first reading is taken, so the measurement covers all of it.
            deadline = time.monotonic() + self._startup_s
            while time.monotonic() < deadline and self._proc.poll() is None:
                if os.path.exists(self._trace_path) and os.path.getsize(self._trace_path) > 0:
                    break
                time.sleep(0.02)
        except BaseException:
            # Interrupted before the block began: the measurement ends with it, never left running.
            self._stop()
            self._finish(quiet=True)
            raise
        if self._proc.poll() is not None:
            self._finish()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self._stop()
        # The block's own exception wins: exa's failure is then a warning, never in its place.
        self._finish(quiet=exc_type is not None)

    def _stop(self) -> None:
        """An interrupt is how exa is told the run is over: it reads the GPUs a last time and records.
        A minute for that, then a terminate, then a kill."""
        proc = self._proc
        if proc is None or proc.poll() is not None:
            return
        for sig, wait_s in ((signal.SIGINT, 60.0), (signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
            proc.send_signal(sig)
            try:
                proc.wait(timeout=wait_s)
                return
            except subprocess.TimeoutExpired:
                continue

    def _finish(self, quiet: bool = False) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        status = proc.wait()
        with open(self._stderr_path, encoding="utf-8", errors="replace") as f:
            said = f.read().strip()
        if os.path.exists(self._report_path):
            with open(self._report_path, encoding="utf-8") as f:
                self.report = json.load(f)
        refusal = None
        try:
            with open(self._stdout_path, encoding="utf-8") as f:
                refusal = json.load(f).get("error", {}).get("message")
        except (OSError, ValueError, AttributeError):
            pass
        self._dir.cleanup()
        if self.report is None:
            errors = [l[len("error: "):] for l in said.splitlines() if l.startswith("error: ")]
            why = refusal or (errors[-1] if errors else None) or (
                f"exa was ended by signal {-status}" if status < 0 else f"exa exited with status {status}")
            if quiet:
                print(f"examlops: the measurement failed: {why}", file=sys.stderr)
                return
            raise ExaError(why, status if status > 0 else 1)
        for line in said.splitlines():
            if line.startswith("warning:"):
                print(f"examlops: {line}", file=sys.stderr)


def measure(model: str | None = None, *, run_id: str | None = None, gpus: str | None = None,
            interval: float | None = None, part: bool = False, extra: list[str] | None = None,
            startup_s: float = 10.0) -> Run:
    """A context manager that measures its block through `exa finops measure`.

    model: record the run as MODEL (with run_id); none: measure and report only.
    gpus: the GPUs to read (exa's --gpus), else exa's own choice.
    interval: seconds between readings (exa's --interval).
    extra: more `exa finops measure` flags, as given.
    """
    args: list[str] = []
    if model is not None:
        args += ["--record", model]
        if run_id is not None:
            args += ["--run-id", run_id]
        if part:
            args.append("--part")
    elif run_id is not None or part:
        raise ValueError("run_id and part need a model to record under")
    if gpus is not None:
        args += ["--gpus", gpus]
    if interval is not None:
        args += ["--interval", str(interval)]
    args += list(extra or [])
    return Run(args, startup_s)


def measured(model: str | None = None, **options):
    """A decorator: each call of the function is measured (and recorded) as `measure` does."""

    def wrap(fn):
        @functools.wraps(fn)
        def inner(*a, **k):
            with measure(model, **options):
                return fn(*a, **k)

        return inner

    return wrap


# Windows inside the process, one measurer per node (after the names it uses are defined).
from .monitor import Monitor, Window  # noqa: E402
