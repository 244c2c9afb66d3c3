"""Windows inside a process, one measurer per node: `Monitor`.

    monitor = examlops.Monitor("llama-ft", run_id="job-42")
    for epoch in range(3):
        with monitor.window(f"epoch-{epoch}") as w:
            train_one_epoch()
            w.tokens = tokens_seen
        print(w.name, w.gpu_j, w.co2e_g, w.j_per_token)
    monitor.close()            # rank 0 records the run, once for the job

Every process and rank of a job on a node talks to one `exa finops measure --serve` over a Unix socket (the
user's own), started by whichever comes first. A window is two readings of the GPUs' energy counters (and the
CPU's), a socket round trip each: any number may nest or overlap. The node's devices are read by one process,
so the job's total counts each device once, however many ranks ask.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

from . import ExaError, exa_path

__all__ = ["Monitor", "Window", "socket_path"]

# The longest answer a measurer gives is a run's report: a few hundred kilobytes for many GPUs.
_MAX_ANSWER = 16 << 20

# The longest a measurer may take to answer: a window reads the GPUs (a tool's deadline, 10 s at most) and an
# inference server's counters (10 s); ending a run prices and records it.
_ANSWER_S = 120.0


def _rank_of(env) -> tuple[int, int | None, int, int]:
    """(rank, local rank, world size, nodes) from torchrun's variables, else Slurm's, else one process; the local
    rank is None where no variable says it."""
    def first(*names, default):
        for n in names:
            v = env.get(n)
            if v is not None and v.strip().isdigit():
                return int(v)
        return default

    # The launcher's own variables before Slurm's: ranks an mpirun inside a batch script starts inherit the batch
    # step's SLURM_PROCID=0 and SLURM_LOCALID=0, which would make each of them rank 0.
    world = first("WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE", "SLURM_NTASKS", default=1)
    local_world = first("LOCAL_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "PALS_LOCAL_SIZE", default=0)
    nodes = first("SLURM_NNODES", "GROUP_WORLD_SIZE", default=0) or (-(-world // local_world) if local_world else 1)
    rank = first("RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID", default=0)
    local = first("LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "PALS_LOCAL_RANKID", "SLURM_LOCALID", default=None)
    return rank, local, world, nodes


def _job_key(env) -> str:
    """What the ranks of one job on a node share: Slurm's job and step, torchrun's run, the rendezvous port,
    else this process alone."""
    if env.get("SLURM_JOB_ID"):
        return f"slurm-{env['SLURM_JOB_ID']}.{env.get('SLURM_STEP_ID', 'x')}"
    # MPI launchers: PMIx's namespace (Open MPI 5, PRRTE), Open MPI 4's job id, Hydra's PMI server (MPICH, Intel MPI).
    for name in ("PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid", "PMI_PORT"):
        if env.get(name):
            return f"mpi-{env[name]}"
    # torchrun's run id is "none" unless one is given: the rendezvous beside it tells two jobs apart.
    run_id = env.get("TORCHELASTIC_RUN_ID", "none")
    if env.get("MASTER_PORT") or run_id != "none":
        return f"torch-{run_id}-{env.get('MASTER_ADDR', '')}-{env.get('MASTER_PORT', '')}"
    return f"pid-{os.getpid()}"


def _check_private(path: str) -> str:
    """`path`, when it is a directory of this user's that no one else may write to (not a link)."""
    st = os.lstat(path)
    if os.path.islink(path) or not os.path.isdir(path) or st.st_uid != os.getuid() or st.st_mode & 0o022:
        raise ExaError(f"{path} is not a private directory of yours: the measurer's socket cannot be made there", 1)
    return path


def _private_dir() -> str:
    """A directory only this user can enter: $XDG_RUNTIME_DIR/exa, else <tmp>/exa-<uid>."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    path = os.path.join(base, "exa") if base and os.path.isdir(base) else os.path.join(tempfile.gettempdir(), f"exa-{os.getuid()}")
    os.makedirs(path, mode=0o700, exist_ok=True)
    return _check_private(path)


def socket_path(env=None) -> str:
    """The socket this job's processes on this node share: $EXAMLOPS_MONITOR_SOCKET, else one named after the job."""
    env = os.environ if env is None else env
    if env.get("EXAMLOPS_MONITOR_SOCKET"):
        return env["EXAMLOPS_MONITOR_SOCKET"]
    key = _job_key(env)
    # A socket's path is at most 107 bytes: a long key is hashed.
    if len(key) > 40 or not all(c.isalnum() or c in "-_." for c in key):
        key = hashlib.sha256(key.encode()).hexdigest()[:24]
    return os.path.join(_private_dir(), f"measure-{key}.sock")


class Window:
    """What the job used over one window: energy (GPU by device, CPU, DRAM), carbon, cost and time.

    Set `tokens` or `requests` inside the window (`w.tokens = n`) for its per-unit figures; a measurer that
    reads an inference server (`extra=["--tokens-from", URL]`) counts them itself, and what is set here wins.
    """

    def __init__(self, name: str):
        self.name = name
        self._tokens: float | None = None
        self._requests: float | None = None
        self.data: dict | None = None

    @property
    def tokens(self) -> float | None:
        return self._tokens if self._tokens is not None else (self.data or {}).get("tokens")

    @tokens.setter
    def tokens(self, n: float | None) -> None:
        self._tokens = n

    @property
    def requests(self) -> float | None:
        return self._requests if self._requests is not None else (self.data or {}).get("requests")

    @requests.setter
    def requests(self, n: float | None) -> None:
        self._requests = n

    def _fill(self, data: dict) -> None:
        self.data = data

    def _get(self, key, default=None):
        if self.data is None:
            raise RuntimeError(f"window {self.name!r} has not ended")
        return self.data.get(key, default)

    @property
    def duration_s(self) -> float:
        return self._get("duration_s")

    @property
    def gpu_j(self) -> dict[int, float]:
        """Each GPU's energy, J, by index."""
        return {int(k): v for k, v in self._get("gpu_j", {}).items()}

    @property
    def gpu_total_j(self) -> float:
        return self._get("gpu_total_j")

    @property
    def cpu_j(self) -> float | None:
        """The node's CPU packages' energy, J (None without counters)."""
        return self._get("node_cpu_j")

    @property
    def dram_j(self) -> float | None:
        """The node's DRAM energy, J (None without a counter)."""
        return self._get("node_dram_j")

    @property
    def energy_kwh(self) -> float:
        """The job's energy: its GPUs' and its part of the CPU and DRAM's."""
        return self._get("energy_kwh")

    @property
    def co2e_g(self) -> float | None:
        carbon = self._get("carbon")
        return carbon["outputs"].get("co2e_g") if carbon else None

    @property
    def cost_usd(self) -> float | None:
        cost = self._get("cost")
        return cost["outputs"].get("cost_usd") if cost else None

    @property
    def j_per_token(self) -> float | None:
        return self.energy_kwh * 3.6e6 / self.tokens if self.tokens else None

    @property
    def j_per_request(self) -> float | None:
        return self.energy_kwh * 3.6e6 / self.requests if self.requests else None

    def __repr__(self) -> str:
        if self.data is None:
            return f"Window({self.name!r}, open)"
        return f"Window({self.name!r}, {self.duration_s:.3f} s, {self.energy_kwh * 3.6e6:.1f} J, {self.co2e_g} gCO2e)"


def _sync(how: str | None) -> None:
    """Waits for the GPUs' queued work, with a framework that is already loaded (never importing one)."""
    if how is None:
        return
    if how == "torch":
        torch = sys.modules.get("torch")
        # Only where CUDA is already started: synchronising would start it (on GPU 0) in a process that had not.
        if torch is not None and torch.cuda.is_available() and torch.cuda.is_initialized():
            torch.cuda.synchronize()
    elif how == "jax":
        jax = sys.modules.get("jax")
        if jax is not None:
            # Every array still being computed, on every device, is waited for.
            for a in jax.live_arrays():
                a.block_until_ready()
    else:
        raise ValueError(f"sync={how!r}: 'torch', 'jax' or None")


class Monitor:
    """A connection to this node's measurer: windows, running totals, and (on the node's local rank 0) the run's
    record.

    model, run_id: record the run as MODEL under RUN_ID when the node's local rank 0 closes (one record a node).
    socket: the measurer's socket (else `socket_path()`); started here when none serves it, with
      gpus, interval and extra (more `exa finops measure` flags) as given.
    sync: "torch" or "jax": wait for the GPUs' queued work at each window's edges.
    rank, local_rank: this process's rank in the job and on its node (else RANK, LOCAL_RANK, SLURM_PROCID,
      SLURM_LOCALID and the like; 0 alone): each node's local rank 0 ends its node's run and records it, as
      one part of the job's when the job spans several nodes (which then needs a run_id).
    """

    def __init__(self, model: str | None = None, *, run_id: str | None = None, socket: str | None = None,
                 gpus: str | None = None, interval: float | None = None, sync: str | None = None,
                 extra: list[str] | None = None, startup_s: float = 10.0, linger: str = "10s",
                 rank: int | None = None, local_rank: int | None = None):
        if run_id is not None and model is None:
            raise ValueError("run_id needs a model to record under")
        if sync not in (None, "torch", "jax"):
            raise ValueError(f"sync={sync!r}: 'torch', 'jax' or None")
        self.model, self.run_id, self.sync = model, run_id, sync
        env_rank, env_local, self.world_size, self.nodes = _rank_of(os.environ)
        self.rank = env_rank if rank is None else rank
        # Without a local rank (a PMI launcher says none) the rank stands in: only rank 0 records, never every rank.
        self.local_rank = local_rank if local_rank is not None else env_local if env_local is not None else self.rank
        if model is not None and self.nodes > 1 and run_id is None:
            raise ValueError(f"a job on {self.nodes} nodes records one part a node: give the run_id they share")
        self.path = socket or socket_path()
        _check_private(os.path.dirname(os.path.abspath(self.path)))
        # A measurer of this process alone (no job around it) ends when this monitor closes.
        self._private = socket is None and not os.environ.get("EXAMLOPS_MONITOR_SOCKET") and _job_key(os.environ).startswith("pid-")
        self._proc = None
        self.report: dict | None = None
        self._open: dict[str, dict] = {}
        self._sock = None
        self._file = None
        args = ["--linger", linger]
        if gpus is not None:
            args += ["--gpus", gpus]
        if interval is not None:
            args += ["--interval", str(interval)]
        self._connect(args + list(extra or []), startup_s)
        hello = self._ask({"op": "hello"})
        self.measurer_pid = hello["pid"]

    # -- the connection ------------------------------------------------------------------------------

    def _try(self) -> bool:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(self.path)
        except OSError:
            s.close()
            return False
        s.settimeout(_ANSWER_S)
        self._sock, self._file = s, s.makefile("rb")
        return True

    def _connect(self, args: list[str], startup_s: float) -> None:
        if self._try():
            return
        # One process starts the measurer: the others wait on the lock, then find it serving.
        flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        with os.fdopen(os.open(self.path + ".lock", flags | os.O_APPEND, 0o600), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                if self._try():
                    return
                log = self.path + ".log"
                with os.fdopen(os.open(log, flags | os.O_TRUNC, 0o600), "wb") as err:
                    self._proc = proc = subprocess.Popen([exa_path(), "-o", "json", "finops", "measure", "--serve", self.path, *args],
                                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                                            start_new_session=True)
                deadline = time.monotonic() + startup_s
                while time.monotonic() < deadline:
                    if self._try():
                        return
                    if proc.poll() is not None:
                        break
                    time.sleep(0.01)
                with open(log, encoding="utf-8", errors="replace") as f:
                    said = [l[len("error: "):] for l in f.read().splitlines() if l.startswith("error: ")]
                if proc.poll() is None:
                    proc.terminate()
                why = said[-1] if said else f"it did not answer on {self.path} within {startup_s} s"
                raise ExaError(f"the measurer could not be started: {why}", 1)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _ask(self, request: dict) -> dict:
        if self._sock is None:
            raise ExaError("the monitor is closed", 1)
        try:
            self._sock.sendall(json.dumps(request).encode() + b"\n")
            line = self._file.readline(_MAX_ANSWER)
        except OSError as e:
            raise ExaError(f"the measurer did not answer: {e}", 1) from None
        if not line:
            raise ExaError("the measurer has gone: the run was ended (by its node's rank 0, or an interrupt)", 1)
        if not line.endswith(b"\n"):
            raise ExaError(f"the measurer's answer is over {_MAX_ANSWER} bytes", 1)
        answer = json.loads(line)
        if not answer.get("ok"):
            raise ExaError(answer.get("error", "the measurer refused"), 1)
        return answer

    # -- windows -------------------------------------------------------------------------------------

    def begin_window(self, name: str) -> None:
        """Opens window NAME now: windows may nest and overlap, but one name is open once at a time."""
        if name in self._open:
            raise ValueError(f"window {name!r} is already open")
        _sync(self.sync)
        self._open[name] = self._ask({"op": "read"})["at"]

    def end_window(self, name: str, window: Window | None = None) -> Window:
        """Closes window NAME now and answers what it used."""
        if name not in self._open:
            raise ValueError(f"no window {name!r} is open")
        _sync(self.sync)
        w = window or Window(name)
        w._fill(self._ask({"op": "window", "from": self._open.pop(name)})["window"])
        return w

    @contextlib.contextmanager
    def window(self, name: str):
        """`with monitor.window("epoch-1") as w:` ... `w.gpu_j`, `w.co2e_g`, `w.j_per_token` after the block."""
        w = Window(name)
        self.begin_window(name)
        try:
            yield w
        except BaseException:
            # The block's own exception wins: the window's failure is then a warning, never in its place.
            try:
                self.end_window(name, w)
            except (ExaError, OSError) as e:
                print(f"examlops: window {name!r} was not measured: {e}", file=sys.stderr)
            raise
        self.end_window(name, w)

    def total(self) -> Window:
        """The job's use so far: since the first of its processes on this node said hello."""
        w = Window("total")
        w._fill(self._ask({"op": "total"})["window"])
        return w

    # -- the end -------------------------------------------------------------------------------------

    def close(self) -> dict | None:
        """Leaves the measurer. Each node's local rank 0 with a model ends its node's run and records it (its
        report is `report`), as do a measurer of this process alone; the measurer of a job that records
        nothing ends once no process has been connected for its linger."""
        if self._sock is None:
            return self.report
        try:
            if self._private or (self.model is not None and self.local_rank == 0):
                request: dict = {"op": "end"}
                if self.model is not None and self.local_rank == 0:
                    request["record"] = self.model
                    if self.run_id is not None:
                        request["run_id"] = self.run_id
                    if self.nodes > 1:
                        request["part"] = True
                self.report = self._ask(request)["report"]
        finally:
            self._file.close()
            self._sock.close()
            self._sock = self._file = None
            if self._proc is not None and self.report is not None:
                self._proc.wait()
            # A measurer of this process alone leaves nothing behind: its lock and log go with it.
            if self._private and self.report is not None:
                for leftover in (self.path + ".lock", self.path + ".log"):
                    with contextlib.suppress(OSError):
                        os.unlink(leftover)
        return self.report

    def __enter__(self) -> "Monitor":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close()
